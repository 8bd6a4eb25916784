import type { RoutineEvent } from "../../src/agent/routine-invocations";
import type { RoutineStatus, RoutineView } from "../../src/agent/routine-view";

/**
 * What a routine is (durable-objects/agent-user/routines.ts runs them): what creates one, its row in
 * the user's agent object, its record as the API shows it, and the content a user confirms.
 */

export interface RoutineInput {
	name: string;
	cron?: string | null;
	event?: RoutineEvent | null;
	prompt: string;
	runNow: boolean;
}

export interface Reconcile {
	subject: string;
	scanned: number;
	scheduled: number;
	kept: number;
	cancelled: number;
	skipped: number;
}

export interface RoutineRow extends Record<string, SqlStorageValue> {
	id: string;
	name: string;
	user_id: number;
	scopes: string;
	/** The key that created (or last replaced) the routine: runs happen only while it stays valid. */
	token_id: number;
	kind: "scheduled" | "event";
	cron: string | null;
	event: string | null;
	prompt: string;
	enabled: number;
	/** The latest due time a scheduled run was started for. */
	ran_for_ms: number | null;
	/** Tries of that due time so far. */
	attempts: number;
	retry_due_ms: number | null;
	last_run_ms: number | null;
	last_error: string | null;
	last_workload_id: string | null;
	/** What the agent replied in the latest run, cut to LAST_REPLY_MAX characters; null when no turn ran. */
	last_reply: string | null;
	/** The content (kind, cron, event, prompt) the user last approved: through the API, or by enabling it. */
	confirmed: string | null;
	/** Set while a turn's version waits for the user's confirmation. */
	confirm_reason: string | null;
}

/** The most of a run's reply a routine's record keeps: the whole reply is the workload's session history. */
export const LAST_REPLY_MAX = 4000;

/** A run's reply as the routine keeps it: bounded, null when there was none. */
export function lastReplyOf(reply: string | null | undefined): string | null {
	const text = reply?.trim();
	if (!text) return null;
	return text.length > LAST_REPLY_MAX ? `${text.slice(0, LAST_REPLY_MAX - 1)}…` : text;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What a routine does, as one value: a turn that changes any of it needs the user's confirmation again. */
export const contentOf = (fields: { kind: string; cron: string | null; event: string | null; prompt: string }) =>
	JSON.stringify([fields.kind, fields.cron, fields.event, fields.prompt]);

export const confirmationNeeded = (name: string, why: string) =>
	`${why}; it stays disabled until you confirm it: PATCH /agent/routines/${encodeURIComponent(name)}/enabled {"enabled": true}`;

/** A routine's record as the API shows it; `slot` names its schedule timer, due at `slotDueMs` (undefined: not set). */
export function routineView(row: RoutineRow, slot: string, slotDueMs: number | undefined): RoutineView {
	const enabled = row.enabled === 1;
	const status: RoutineStatus = !enabled
		? "disabled"
		: row.kind === "event"
			? "listening"
			: row.retry_due_ms !== null
				? "retrying"
				: "scheduled";
	const oneLine = row.prompt.replace(/\s+/g, " ").trim();
	return {
		id: row.id,
		name: row.name,
		kind: row.kind,
		cron: row.cron,
		event: row.event,
		lifecycle: "oneshot",
		plan_summary: oneLine.length > 80 ? `${oneLine.slice(0, 79)}…` : oneLine,
		job_id: row.kind === "scheduled" ? slot : null,
		next_run: row.kind === "scheduled" && enabled ? iso(slotDueMs ?? null) : null,
		status,
		enabled,
		last_run: iso(row.last_run_ms),
		// A run that failed records its error, one that succeeded clears it (routines.ts recordOutcome).
		last_ok: row.last_run_ms === null ? null : row.last_error === null,
		last_error: row.last_error,
		last_reply: row.last_reply ?? null,
		last_workload_id: row.last_workload_id,
		needs_confirmation: row.confirm_reason !== null,
		confirmation_reason: row.confirm_reason,
	};
}
