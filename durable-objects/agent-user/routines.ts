import type { AgentCaller } from "../../src/agent/caller";
import { nextRunAfter } from "../../src/agent/cron";
import type { Invocation, WorkloadOutcome } from "../../src/agent/envelopes";
import { type MeetingEvent, meetingEventInvocation, type RoutinePlan, scheduledInvocation } from "../../src/agent/routine-invocations";
import type { RoutineView } from "../../src/agent/routine-view";
import { errorName } from "../../src/error-text";
import { isScope, type Scope } from "../../src/gateway/api-keys";
import { sha256Hex } from "../../src/sha256";
import type { TimerHandlers } from "../shared/alarm-timers";
import { addMissingColumns } from "../shared/sql-schema";
import {
	confirmationNeeded,
	contentOf,
	lastReplyOf,
	type Reconcile,
	type RoutineInput,
	type RoutineRow,
	routineView,
} from "./routine-records";
import { AGENT_USER_STORAGE } from "./storage";
import type { AgentTimer, AgentTimers } from "./timers";

const TABLES = AGENT_USER_STORAGE.tables;

/**
 * A user's routines (docs/agent.md#routines): saved prompts their agent runs at cron times or
 * on their meeting events, each run an invocation through the object's runtime. Every run is
 * driven by a named timer on the object's one alarm; its due time is recorded before it runs,
 * so an alarm that fires twice for one due time runs it once.
 */

/** Runs one invocation to its end (the object's runInvocation; a recording one in tests). */
export type RoutineRunner = (caller: AgentCaller, invocation: Invocation) => Promise<WorkloadOutcome>;
/** The creator as their key stands at run time: its scopes now, or null once it was revoked or expired. */
export type RoutineAuthority = (creator: AgentCaller) => Promise<AgentCaller | null>;

export const KEY_REVOKED =
	"The key that created this routine was revoked or has expired, so the routine is disabled; create it again with a valid key";

/** Waits before the 1st, 2nd and 3rd retry of a due time; after those, that due time is given up. */
export const RETRY_BACKOFF_MS = [30_000, 120_000, 300_000] as const;
/** Finished event runs are kept this long, so a repeated meeting event does not run a routine again. */
const EVENT_RUN_MEMORY_MS = 30 * 24 * 3600_000;

/** A routine's timers (agent-user/timers.ts): its next scheduled run, its retry, and each event run. */
const slotTimer = (id: string) => `routine:${id}` as const;
const retryTimer = (id: string) => `routine-retry:${id}` as const;
const eventRunTimer = (runId: string) => `routine-event:${runId}` as const;

interface EventRunRow extends Record<string, SqlStorageValue> {
	id: string;
	routine_id: string;
	meeting: string;
	attempts: number;
	/** A try is due; taken (0) when it starts, so a timer firing twice runs it once. */
	pending: number;
	done: number;
	created_ms: number;
}

const plan = (row: RoutineRow): RoutinePlan => ({ id: row.id, userId: row.user_id, prompt: row.prompt });

export class Routines {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly timers: AgentTimers,
		private readonly run: RoutineRunner,
		private readonly authority: RoutineAuthority,
		private readonly now: () => number = Date.now,
	) {
		storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.routines} (
			id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, user_id INTEGER NOT NULL, scopes TEXT NOT NULL, token_id INTEGER NOT NULL,
			kind TEXT NOT NULL, cron TEXT, event TEXT, prompt TEXT NOT NULL, enabled INTEGER NOT NULL,
			ran_for_ms INTEGER, attempts INTEGER NOT NULL DEFAULT 0, retry_due_ms INTEGER,
			last_run_ms INTEGER, last_error TEXT, last_workload_id TEXT, created_ms INTEGER NOT NULL, updated_ms INTEGER NOT NULL)`);
		addMissingColumns(storage.sql, TABLES.routines, { confirmed: "TEXT", confirm_reason: "TEXT", last_reply: "TEXT" });
		storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.routineEventRuns} (
			id TEXT PRIMARY KEY, routine_id TEXT NOT NULL, meeting TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
			pending INTEGER NOT NULL DEFAULT 1, done INTEGER NOT NULL DEFAULT 0, created_ms INTEGER NOT NULL)`);
	}

	/** What the object's alarm runs for each kind of routine timer, at the due time it fires for. */
	readonly timerHandlers: Pick<TimerHandlers<AgentTimer>, "routine" | "routine-retry" | "routine-event"> = {
		routine: (timer) => this.runSlot(timer.key, timer.dueMs),
		"routine-retry": (timer) => this.runRetry(timer.key),
		"routine-event": (timer) => this.runEvent(timer.key),
	};

	/**
	 * Why a routine named `name` cannot be made now (the user has `max` already), or null. Called
	 * right before create, with no await between, so two requests cannot both pass it.
	 */
	refusal(name: string, max: number): string | null {
		if (this.byName(name)) return null;
		const { count } = this.storage.sql.exec<{ count: number }>(`SELECT COUNT(*) AS count FROM ${TABLES.routines}`).one();
		if (count < max) return null;
		return `You have ${count} routines, the most one user may have (${max}); delete one before making another`;
	}

	/**
	 * Creates a routine, or replaces the cron, event and prompt of the one with that name (its id
	 * and enabled state stay). The user asked for it (the API or the dashboard), so this content is confirmed.
	 */
	async create(caller: AgentCaller, input: RoutineInput): Promise<{ routine: RoutineView; job_id: string | null; ran_now: boolean }> {
		const made = await this.upsert(caller, input, null);
		const ranNow = input.runNow && made.kind === "scheduled" && made.enabled === 1;
		if (ranNow) await this.timers.set(slotTimer(made.id), this.now());
		const routine = await this.view(this.get(made.id) as RoutineRow);
		return { routine, job_id: routine.job_id, ran_now: ranNow };
	}

	/**
	 * A routine as an agent turn's file asks for it (durable-objects/agent-user/routine-files.ts): content the
	 * user confirmed before keeps the file's `enabled`; anything new or changed is disabled and
	 * waits for the user's confirmation, since the turn may have followed someone else's words.
	 */
	async fromTurn(caller: AgentCaller, input: Omit<RoutineInput, "runNow">, enabled: boolean, file: string): Promise<RoutineView> {
		const kind = input.cron ? "scheduled" : "event";
		const before = this.byName(input.name)?.confirmed;
		const confirmed = before === contentOf({ kind, cron: input.cron ?? null, event: input.event ?? null, prompt: input.prompt });
		const why = before ? `An agent turn changed it (${file})` : `An agent turn wrote it (${file})`;
		const made = await this.upsert(caller, { ...input, runNow: false }, confirmed ? null : confirmationNeeded(input.name, why));
		if ((made.enabled === 1) !== (confirmed && enabled)) await this.setEnabled(caller.userId, input.name, confirmed && enabled);
		return this.view(this.get(made.id) as RoutineRow);
	}

	/** Writes the routine and sets its schedule; `awaiting` (a reason) keeps it disabled until the user confirms this content. */
	private async upsert(caller: AgentCaller, input: RoutineInput, awaiting: string | null): Promise<RoutineRow> {
		const now = this.now();
		const kind = input.cron ? "scheduled" : "event";
		const content = contentOf({ kind, cron: input.cron ?? null, event: input.event ?? null, prompt: input.prompt });
		const existing = this.byName(input.name);
		const id = existing?.id ?? `rt_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
		const fields = [
			caller.userId,
			caller.scopes.join(","),
			caller.tokenId,
			kind,
			input.cron ?? null,
			input.event ?? null,
			input.prompt,
			now,
			// What waits for confirmation keeps the content confirmed before; what the user asked for is confirmed now.
			awaiting === null ? content : (existing?.confirmed ?? null),
			awaiting,
		];
		if (existing)
			this.storage.sql.exec(
				`UPDATE ${TABLES.routines} SET user_id = ?, scopes = ?, token_id = ?, kind = ?, cron = ?, event = ?, prompt = ?, updated_ms = ?, confirmed = ?, confirm_reason = ?,
				enabled = CASE WHEN ? IS NULL THEN enabled ELSE 0 END, attempts = 0, retry_due_ms = NULL WHERE id = ?`,
				...fields,
				awaiting,
				id,
			);
		else
			this.storage.sql.exec(
				`INSERT INTO ${TABLES.routines} (user_id, scopes, token_id, kind, cron, event, prompt, updated_ms, confirmed, confirm_reason, id, name, enabled, created_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				...fields,
				id,
				input.name,
				awaiting === null ? 1 : 0,
				now,
			);
		await this.timers.clear(retryTimer(id));
		const row = this.get(id) as RoutineRow;
		// A run asked for now is a timer due now (create sets it): the alarm runs it, the request does not wait.
		if (kind === "scheduled" && row.enabled === 1) await this.timers.set(slotTimer(id), nextRunAfter(row.cron ?? "", now));
		else await this.timers.clear(slotTimer(id));
		return row;
	}

	async list(): Promise<RoutineView[]> {
		const rows = this.storage.sql.exec<RoutineRow>(`SELECT * FROM ${TABLES.routines} ORDER BY created_ms, id`).toArray();
		return Promise.all(rows.map((row) => this.view(row)));
	}

	private async view(row: RoutineRow): Promise<RoutineView> {
		return routineView(row, slotTimer(row.id), await this.timers.due(slotTimer(row.id)));
	}

	/**
	 * Enables or disables a routine by name and brings every timer in line with the table; null
	 * when unknown. The user enabling a routine that waits for confirmation confirms what it now holds.
	 */
	async setEnabled(userId: number, name: string, enabled: boolean): Promise<Reconcile | null> {
		const row = this.byName(name);
		if (!row) return null;
		if (enabled && row.confirm_reason !== null)
			this.storage.sql.exec(`UPDATE ${TABLES.routines} SET confirmed = ?, confirm_reason = NULL WHERE id = ?`, contentOf(row), row.id);
		this.storage.sql.exec(
			`UPDATE ${TABLES.routines} SET enabled = ?, attempts = CASE WHEN ? THEN attempts ELSE 0 END, retry_due_ms = CASE WHEN ? THEN retry_due_ms ELSE NULL END, updated_ms = ? WHERE id = ?`,
			enabled ? 1 : 0,
			enabled ? 1 : 0,
			enabled ? 1 : 0,
			this.now(),
			row.id,
		);
		return this.reconcile(userId);
	}

	/** Timers follow the table: an enabled scheduled routine has its next run, nothing else has one. */
	async reconcile(userId: number): Promise<Reconcile> {
		const counts: Reconcile = { subject: String(userId), scanned: 0, scheduled: 0, kept: 0, cancelled: 0, skipped: 0 };
		for (const row of this.storage.sql.exec<RoutineRow>(`SELECT * FROM ${TABLES.routines}`).toArray()) {
			counts.scanned += 1;
			const armed = (await this.timers.due(slotTimer(row.id))) !== undefined;
			if (row.kind === "scheduled" && row.enabled === 1) {
				if (armed) counts.kept += 1;
				else {
					await this.timers.set(slotTimer(row.id), nextRunAfter(row.cron ?? "", this.now()));
					counts.scheduled += 1;
				}
			} else if (armed || (await this.timers.due(retryTimer(row.id))) !== undefined) {
				await this.timers.clear(slotTimer(row.id));
				await this.timers.clear(retryTimer(row.id));
				counts.cancelled += 1;
			} else counts.skipped += 1;
		}
		return counts;
	}

	/** Disables a routine until the user confirms it (`why`: what they are told). Its timers find it disabled and do nothing. */
	hold(id: string, why: string): void {
		const row = this.get(id);
		if (!row) return;
		this.storage.sql.exec(
			`UPDATE ${TABLES.routines} SET enabled = 0, retry_due_ms = NULL, confirm_reason = ? WHERE id = ?`,
			confirmationNeeded(row.name, why),
			id,
		);
	}

	/** Deletes a routine with its timers and pending event runs; false when there is none with that id. */
	async remove(id: string): Promise<boolean> {
		if (!this.get(id)) return false;
		const pending = this.storage.sql
			.exec<{ id: string }>(`SELECT id FROM ${TABLES.routineEventRuns} WHERE routine_id = ? AND done = 0`, id)
			.toArray();
		this.storage.sql.exec(`DELETE FROM ${TABLES.routines} WHERE id = ?`, id);
		this.storage.sql.exec(`DELETE FROM ${TABLES.routineEventRuns} WHERE routine_id = ?`, id);
		for (const timer of [slotTimer(id), retryTimer(id), ...pending.map((r) => eventRunTimer(r.id))]) await this.timers.clear(timer);
		return true;
	}

	/**
	 * A meeting event of the user: each enabled routine waiting for it gets a run, due now (the
	 * caller does not wait for it). The same event for the same meeting runs a routine once.
	 */
	async meetingEvent(event: MeetingEvent): Promise<{ queued: number }> {
		const now = this.now();
		this.storage.sql.exec(`DELETE FROM ${TABLES.routineEventRuns} WHERE done = 1 AND created_ms < ?`, now - EVENT_RUN_MEMORY_MS);
		const waiting = this.storage.sql
			.exec<RoutineRow>(`SELECT * FROM ${TABLES.routines} WHERE kind = 'event' AND enabled = 1 AND event = ?`, event.name)
			.toArray();
		let queued = 0;
		for (const routine of waiting) {
			const runId = `ev_${await sha256Hex(`${routine.id}\n${event.name}\n${event.meeting.meeting_id}`, 6)}`;
			const inserted = this.storage.sql
				.exec(
					`INSERT INTO ${TABLES.routineEventRuns} (id, routine_id, meeting, created_ms) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING RETURNING id`,
					runId,
					routine.id,
					JSON.stringify({ name: event.name, meeting: event.meeting }),
					now,
				)
				.toArray();
			if (inserted.length === 0) continue;
			await this.timers.set(eventRunTimer(runId), now);
			queued += 1;
		}
		return { queued };
	}

	/** A scheduled routine's due time: recorded, the next one set, then run. */
	private async runSlot(id: string, dueMs: number): Promise<void> {
		const row = this.get(id);
		if (row?.enabled !== 1 || row.kind !== "scheduled") return;
		// From the later of now and the due time, so an alarm that came early cannot repeat this slot.
		const next = nextRunAfter(row.cron ?? "", Math.max(this.now(), dueMs));
		if (row.ran_for_ms !== null && row.ran_for_ms >= dueMs) {
			// This due time already ran: only the schedule goes on.
			await this.timers.set(slotTimer(id), next);
			return;
		}
		this.storage.sql.exec(`UPDATE ${TABLES.routines} SET ran_for_ms = ?, attempts = 1, retry_due_ms = NULL WHERE id = ?`, dueMs, id);
		await this.timers.clear(retryTimer(id));
		await this.timers.set(slotTimer(id), next);
		await this.attemptSlot(row, dueMs, 1);
	}

	/** A retry runs once: its pending mark is taken before it starts. */
	private async runRetry(id: string): Promise<void> {
		const row = this.get(id);
		if (row?.enabled !== 1 || row.retry_due_ms === null || row.ran_for_ms === null) return;
		const attempt = row.attempts + 1;
		this.storage.sql.exec(`UPDATE ${TABLES.routines} SET attempts = ?, retry_due_ms = NULL WHERE id = ?`, attempt, id);
		await this.attemptSlot(row, row.ran_for_ms, attempt);
	}

	private async attemptSlot(row: RoutineRow, slotMs: number, attempt: number): Promise<void> {
		const outcome = await this.runSafely(row, scheduledInvocation(plan(row)));
		const after = this.get(row.id);
		// Deleted while it ran: it stays deleted.
		if (!after) return;
		this.recordOutcome(row.id, outcome);
		const retry = !outcome.ok && outcome.retryable && after.enabled === 1 && after.ran_for_ms === slotMs;
		const wait = RETRY_BACKOFF_MS[attempt - 1];
		if (!retry || wait === undefined) return;
		const retryAt = this.now() + wait;
		this.storage.sql.exec(`UPDATE ${TABLES.routines} SET retry_due_ms = ? WHERE id = ?`, retryAt, row.id);
		await this.timers.set(retryTimer(row.id), retryAt);
	}

	private async runEvent(runId: string): Promise<void> {
		const run = this.storage.sql.exec<EventRunRow>(`SELECT * FROM ${TABLES.routineEventRuns} WHERE id = ?`, runId).toArray()[0];
		if (run?.pending !== 1 || run.done === 1) return;
		const routine = this.get(run.routine_id);
		if (routine?.enabled !== 1) {
			this.storage.sql.exec(`UPDATE ${TABLES.routineEventRuns} SET done = 1 WHERE id = ?`, runId);
			return;
		}
		const attempt = run.attempts + 1;
		this.storage.sql.exec(`UPDATE ${TABLES.routineEventRuns} SET attempts = ?, pending = 0 WHERE id = ?`, attempt, runId);
		const event = JSON.parse(run.meeting) as MeetingEvent;
		const outcome = await this.runSafely(routine, meetingEventInvocation(plan(routine), event));
		if (!this.get(routine.id)) return;
		this.recordOutcome(routine.id, outcome);
		const wait = RETRY_BACKOFF_MS[attempt - 1];
		if (!outcome.ok && outcome.retryable && wait !== undefined) {
			this.storage.sql.exec(`UPDATE ${TABLES.routineEventRuns} SET pending = 1 WHERE id = ?`, runId);
			await this.timers.set(eventRunTimer(runId), this.now() + wait);
		} else this.storage.sql.exec(`UPDATE ${TABLES.routineEventRuns} SET done = 1 WHERE id = ?`, runId);
	}

	/**
	 * Runs with the rights the creating key has now: a revoked or expired key disables the
	 * routine instead of running it. A runner that throws is a failed run worth retrying; its
	 * message (maybe a provider's) stays in the log.
	 */
	private async runSafely(row: RoutineRow, invocation: Invocation): Promise<WorkloadOutcome> {
		const creator = { userId: row.user_id, scopes: row.scopes.split(",").filter(isScope) as Scope[], tokenId: row.token_id };
		try {
			const caller = await this.authority(creator);
			if (!caller) {
				this.storage.sql.exec(`UPDATE ${TABLES.routines} SET enabled = 0, retry_due_ms = NULL WHERE id = ?`, row.id);
				await this.timers.clear(slotTimer(row.id));
				await this.timers.clear(retryTimer(row.id));
				return { workload_id: "", ok: false, retryable: false, detail: KEY_REVOKED };
			}
			return await this.run(caller, invocation);
		} catch (err) {
			console.error("routine run failed", row.id, errorName(err));
			return { workload_id: "", ok: false, retryable: true, detail: "The run could not complete; it is retried" };
		}
	}

	private recordOutcome(id: string, outcome: WorkloadOutcome): void {
		const error = outcome.ok ? null : (outcome.detail ?? "The run failed");
		this.storage.sql.exec(
			`UPDATE ${TABLES.routines} SET last_run_ms = ?, last_error = ?, last_workload_id = ?, last_reply = ? WHERE id = ?`,
			this.now(),
			error,
			outcome.workload_id || null,
			lastReplyOf(outcome.reply),
			id,
		);
	}

	private get(id: string): RoutineRow | undefined {
		return this.storage.sql.exec<RoutineRow>(`SELECT * FROM ${TABLES.routines} WHERE id = ?`, id).toArray()[0];
	}

	private byName(name: string): RoutineRow | undefined {
		return this.storage.sql.exec<RoutineRow>(`SELECT * FROM ${TABLES.routines} WHERE name = ?`, name).toArray()[0];
	}
}
