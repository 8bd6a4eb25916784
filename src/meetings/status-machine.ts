/**
 * The meeting status machine: one table of legal moves and who may make each, plus the rules
 * that decide how a meeting ends (`completion_reason`, `failure_stage`). Everything that
 * changes a meeting's status asks `transition` first; a refused move changes nothing.
 */
import type { z } from "zod";
import type { CompletionReason, FailureCause, FailureStage as FailureStageSchema } from "../bot-channel/protocol";
import { REASON_OUTCOME, RETRYABLE_REASONS } from "../bot-channel/protocol";
import { LIVE_STATUSES, MEETING_STATUSES, PLANNED_STATUSES, TERMINAL_STATUSES } from "./statuses";

export type { CompletionReason, FailureCause };
export type FailureStage = z.infer<typeof FailureStageSchema>;

// The lists live in a module of their own, free of the protocol, so the dashboard reads them too.
export { LIVE_STATUSES, MEETING_STATUSES, PLANNED_STATUSES, TERMINAL_STATUSES };

export type PlannedStatus = (typeof PLANNED_STATUSES)[number];
export type LiveStatus = (typeof LIVE_STATUSES)[number];
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];
export type MeetingStatus = (typeof MEETING_STATUSES)[number];

/** Who asks for a move: the API caller, the bot over its channel, a watchdog, auto-join, calendar import. */
export type Actor = "user" | "bot" | "system" | "scheduler" | "calendar";

/** One status step, as /ws frames and webhook events describe it; `null` is "no record". */
export interface StatusStep {
	from: MeetingStatus | null;
	to: MeetingStatus | null;
	/** Sanitized free text from whoever made the step (a bot's "host denied admission"). */
	reason?: string;
	actor: Actor;
	at: string;
	/** A step that changes no status but is news about the plan (an auto-join error). */
	note?: boolean;
}

export const isPlanned = (s: MeetingStatus): s is PlannedStatus => (PLANNED_STATUSES as readonly string[]).includes(s);
export const isLive = (s: MeetingStatus): s is LiveStatus => (LIVE_STATUSES as readonly string[]).includes(s);
export const isTerminal = (s: MeetingStatus): s is TerminalStatus => (TERMINAL_STATUSES as readonly string[]).includes(s);

// The ending table lives with the channel protocol, so the bot reports what the room records.
export { REASON_OUTCOME, RETRYABLE_REASONS };

const LIVE_BEFORE_STOP = ["requested", "joining", "awaiting_admission", "needs_help", "active"] as const;

interface Move {
	/** `null`: the record does not exist yet (it is created in `to`). */
	from: readonly (MeetingStatus | null)[];
	/** `null`: the record is removed. */
	to: MeetingStatus | null;
	by: readonly Actor[];
	/** Why the move exists (the trigger); documentation that tests can print. */
	on: string;
}

/** THE table. Anything not listed here is refused. */
export const MOVES: readonly Move[] = [
	{ from: [null], to: "idle", by: ["user"], on: "POST /meetings without scheduled_at" },
	{ from: [null], to: "scheduled", by: ["user", "calendar"], on: "POST /meetings with scheduled_at, or a calendar event imported" },
	{ from: [null], to: "requested", by: ["user"], on: "POST /bots on a link without a plan" },
	{ from: ["idle"], to: "scheduled", by: ["user", "calendar"], on: "PATCH sets scheduled_at, or a calendar event adopts the plan" },
	{ from: ["scheduled"], to: "idle", by: ["user"], on: "PATCH clears scheduled_at" },
	{ from: ["idle", "scheduled"], to: null, by: ["user", "calendar"], on: "DELETE /meetings, or no calendar plans it any more" },
	{ from: ["idle", "scheduled"], to: "requested", by: ["user"], on: "POST /bots claims the planned record" },
	{ from: ["scheduled"], to: "requested", by: ["scheduler"], on: "auto-join about 60 s before scheduled_at" },
	// A claim whose bot never got going goes back to where it came from (nothing was announced yet).
	{ from: ["requested"], to: "idle", by: ["user"], on: "POST /bots broke before the hand-off: the plan is given back" },
	{
		from: ["requested"],
		to: "scheduled",
		by: ["user", "scheduler"],
		on: "the launch broke, or an auto-join got no bot (its ticket was refused, or no host claimed it)",
	},
	{ from: ["requested"], to: null, by: ["user"], on: "POST /bots broke before the hand-off: the record made for it goes" },
	// The bot reports forward progress; it may skip a stage (no lobby, or admitted at once).
	{ from: ["requested", "needs_help"], to: "joining", by: ["bot"], on: "bot opened the meeting page" },
	{ from: ["requested", "joining", "needs_help"], to: "awaiting_admission", by: ["bot"], on: "bot is in the lobby" },
	{ from: ["requested", "joining", "awaiting_admission", "needs_help"], to: "active", by: ["bot"], on: "bot admitted" },
	{ from: ["requested", "joining", "awaiting_admission", "active"], to: "needs_help", by: ["bot"], on: "bot is stuck" },
	{ from: LIVE_BEFORE_STOP, to: "stopping", by: ["user", "system"], on: "DELETE /bots: leave requested" },
	{ from: LIVE_STATUSES, to: "completed", by: ["user", "bot", "system"], on: "meeting over (reason decides the outcome)" },
	{ from: LIVE_STATUSES, to: "failed", by: ["bot", "system"], on: "bot cannot continue (reason decides)" },
	{ from: TERMINAL_STATUSES, to: null, by: ["user"], on: "DELETE /meetings of an ended meeting: everything of it goes, on every store" },
];

const STAGE_ORDER: readonly FailureStage[] = ["requested", "joining", "awaiting_admission", "active"];

/** What the machine needs to know about a meeting; `reached_stage` is kept by the caller. */
export interface MeetingState {
	status: MeetingStatus;
	completion_reason: CompletionReason | null;
	failure_stage: FailureStage | null;
	/** Furthest live stage seen so far: `needs_help` and `stopping` hide where the bot was. */
	reached_stage: FailureStage | null;
}

export interface TransitionRequest {
	to: MeetingStatus;
	actor: Actor;
	completion_reason?: CompletionReason;
	/** The bot's own account of how far it got; the furthest of this and what was seen wins. */
	failure_stage?: FailureStage;
	/** The fleet took the bot away (never placed, host lost, host shut down): the end is a teardown. */
	failure_cause?: FailureCause;
}

export type Refusal = "terminal" | "illegal_move" | "not_permitted";
export type TransitionResult =
	| { ok: true; changed: boolean; from: MeetingStatus; state: MeetingState }
	| { ok: false; refusal: Refusal; detail: string };

/** Which actors may move `from` → `to` (empty: the move is illegal); `null` is "no record". */
export function actorsFor(from: MeetingStatus | null, to: MeetingStatus | null): Actor[] {
	const actors = new Set<Actor>();
	for (const move of MOVES) if (move.to === to && move.from.includes(from)) for (const a of move.by) actors.add(a);
	return [...actors];
}

/** Whether `actor` may create a record in `status`, or remove one in `status` (see the table). */
export const mayCreate = (status: MeetingStatus, actor: Actor) => actorsFor(null, status).includes(actor);
export const mayRemove = (status: MeetingStatus, actor: Actor) => actorsFor(status, null).includes(actor);

/** The state of a record that has just been created with `status`. */
export function initialState(status: MeetingStatus): MeetingState {
	return { status, completion_reason: null, failure_stage: null, reached_stage: stageOf(status) };
}

/**
 * Decides a move. Terminal requests are resolved by the rules:
 * - a user stop always wins: a user move to `completed`, or any end while `stopping`, is
 *   `completed` with `stopped`, whatever the bot reports;
 * - otherwise the reason decides the outcome (REASON_OUTCOME), not the status the bot named;
 * - a teardown (a watchdog's end without a reason, or any end naming a fleet `failure_cause`)
 *   takes its reason from the stage (docs/status-machine.md#how-a-meeting-ends):
 *   before the lobby `join_failure`, in the lobby `awaiting_admission_timeout`, once admitted
 *   `failed` with no reason;
 * - `failure_stage` is the furthest live stage reached, set only when the outcome is `failed`.
 */
export function transition(current: MeetingState, request: TransitionRequest): TransitionResult {
	const from = current.status;
	if (isTerminal(from)) return { ok: false, refusal: "terminal", detail: `meeting is already ${from}` };
	const reached = furthest(current.reached_stage, stageOf(from));
	// Saying again where the meeting is (a bot's repeated report, a second stop) changes nothing
	// and is not an error. A second request is: POST /bots answers it with 409.
	if (request.to === from && from !== "requested") {
		const entrants = new Set(MOVES.filter((m) => m.to === from && m.from.some((f) => f !== null)).flatMap((m) => m.by));
		if (!entrants.has(request.actor)) return { ok: false, refusal: "not_permitted", detail: `${request.actor} may not report ${from}` };
		return { ok: true, changed: false, from, state: { ...current, reached_stage: reached } };
	}
	const actors = actorsFor(from, request.to);
	if (actors.length === 0) return { ok: false, refusal: "illegal_move", detail: `${from} cannot move to ${request.to}` };
	if (!actors.includes(request.actor)) {
		return { ok: false, refusal: "not_permitted", detail: `${request.actor} may not move ${from} to ${request.to}` };
	}
	if (!isTerminal(request.to)) {
		const state = {
			status: request.to,
			completion_reason: null,
			failure_stage: null,
			reached_stage: furthest(reached, stageOf(request.to)),
		};
		return { ok: true, changed: true, from, state };
	}
	return { ok: true, changed: true, from, state: ending(from, reached, request) };
}

function ending(from: MeetingStatus, reached: FailureStage | null, request: TransitionRequest): MeetingState {
	const stage = furthest(reached, request.failure_stage ?? null);
	const userStop = request.actor === "user" || from === "stopping";
	const reason: CompletionReason | null = userStop
		? "stopped"
		: request.failure_cause
			? teardownReason(stage)
			: (request.completion_reason ?? (request.actor === "system" ? teardownReason(stage) : null));
	// Without a reason the named status stands (a bot that says only "failed" has failed); a teardown has failed.
	const named: TerminalStatus = request.to === "completed" && !request.failure_cause ? "completed" : "failed";
	const status: TerminalStatus = reason ? REASON_OUTCOME[reason] : named;
	return {
		status,
		completion_reason: reason,
		failure_stage: status === "failed" ? (stage ?? "requested") : null,
		reached_stage: stage,
	};
}

/** Why a bot that was torn down ended: it never got past joining, or it waited in the lobby (admitted: no reason). */
function teardownReason(stage: FailureStage | null): CompletionReason | null {
	if (stage === null || stage === "requested" || stage === "joining") return "join_failure";
	if (stage === "awaiting_admission") return "awaiting_admission_timeout";
	return null;
}

function stageOf(status: MeetingStatus): FailureStage | null {
	return (STAGE_ORDER as readonly string[]).includes(status) ? (status as FailureStage) : null;
}

function furthest(a: FailureStage | null, b: FailureStage | null): FailureStage | null {
	if (a === null) return b;
	if (b === null) return a;
	return STAGE_ORDER.indexOf(a) >= STAGE_ORDER.indexOf(b) ? a : b;
}
