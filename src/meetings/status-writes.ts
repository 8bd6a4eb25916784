/**
 * The one write path for a meeting's `status`: every writer (the API, launch, auto-join, the
 * calendar, the room) creates, moves or removes a record here. Each write is checked against
 * the move table first, made only while the record is still where the writer saw it, and then
 * handed to an `Announce`, which tells the world (the room's /ws watchers and webhook events).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { type MeetingRow, meetings } from "../db/schema";
import type { Env } from "../env";
import { meetingRoom } from "../objects";
import { failureDetail, sanitize } from "./failure-detail";
import { db, nowIso } from "./meeting-store";
import {
	type Actor,
	initialState,
	isTerminal,
	type MeetingState,
	type MeetingStatus,
	mayCreate,
	mayRemove,
	type TransitionRequest,
	transition,
} from "./status-machine";

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

/** The machine state a step left and the one it made (the room needs how far the bot got). */
export interface Machines {
	before: MeetingState;
	after: MeetingState;
}

/** Tells the world about a written step. */
export type Announce = (row: MeetingRow, step: StatusStep, machines: Machines) => Promise<void>;

/** For undoing a step that was never announced (a claim whose bot never got going). */
export const unannounced: Announce = async () => {};

/** Plan-side steps are told through the meeting's room: it knows the watchers and keeps webhook events durable. */
export const announceInRoom =
	(env: Env): Announce =>
	(row, step) =>
		meetingRoom(env, row.id).announce(row, step);

type MeetingColumns = Partial<typeof meetings.$inferInsert>;

export class RefusedMove extends Error {}

export interface MoveRequest {
	meetingId: number;
	/** What the writer knows of the meeting; `initialState(status)` when it keeps no more. */
	current: MeetingState;
	ask: TransitionRequest & { reason?: string };
	/** The statuses the record must still be in for the write; by default the current one. */
	guard?: readonly MeetingStatus[];
	/** Other columns written in the same statement (a plan's edit, a claim's bot fields). */
	values?: MeetingColumns;
}

export type MoveOutcome =
	| { ok: false; why: "refused"; detail: string }
	/** The record was no longer in a guarded status: nothing was written. */
	| { ok: false; why: "moved_on" }
	/** `row` is null when the move restated the status and there were no `values` to write. */
	| { ok: true; row: MeetingRow | null; state: MeetingState; step: StatusStep | null };

/**
 * Checks a move against the table, writes it (with `values`) while the record is still in a
 * guarded status, and announces it. A failed meeting gets its cause in `data.failure_detail`.
 * Restating the current status writes `values` only and announces nothing.
 */
export async function moveMeeting(env: Env, request: MoveRequest, announce: Announce): Promise<MoveOutcome> {
	const { current, ask } = request;
	const result = transition(current, ask);
	if (!result.ok) return { ok: false, why: "refused", detail: result.detail };
	const next = result.state;
	if (!result.changed && !request.values) return { ok: true, row: null, state: next, step: null };
	const now = nowIso();
	const reason = ask.reason ? sanitize(ask.reason) : undefined;
	const columns: MeetingColumns = result.changed
		? {
				status: next.status,
				completionReason: next.completion_reason,
				failureStage: next.failure_stage,
				endTime: isTerminal(next.status) ? now : null,
				...request.values,
			}
		: { ...request.values };
	const detail = next.status === "failed" && result.changed ? failureDetail(ask.reason, next.completion_reason) : null;
	const row = await db(env)
		.update(meetings)
		.set({
			...columns,
			...(detail ? { data: sql`json_set(${meetings.data}, '$.failure_detail', ${detail})` } : {}),
			updatedAt: now,
		})
		.where(and(eq(meetings.id, request.meetingId), inArray(meetings.status, [...(request.guard ?? [current.status])])))
		.returning()
		.get();
	if (!row) return { ok: false, why: "moved_on" };
	if (!result.changed) return { ok: true, row, state: next, step: null };
	const step: StatusStep = { from: result.from, to: next.status, reason, actor: ask.actor, at: now };
	await announce(row, step, { before: current, after: next });
	return { ok: true, row, state: next, step };
}

/** Creates a record in its first status (the table says who may) and announces it, `from: null`. */
export async function createMeeting(
	env: Env,
	values: typeof meetings.$inferInsert & { status: MeetingStatus },
	actor: Actor,
	announce: Announce,
): Promise<MeetingRow> {
	const status = values.status;
	if (!mayCreate(status, actor)) throw new RefusedMove(`${actor} may not create a ${status} meeting`);
	const row = await db(env).insert(meetings).values(values).returning().get();
	if (!row) throw new Error("meeting was not stored");
	await announce(row, { from: null, to: status, actor, at: row.updatedAt }, { before: initialState(status), after: initialState(status) });
	return row;
}

/** Removes a record still in the status it was seen in, and announces it, `to: null`; false when it moved on. */
export async function removeMeeting(env: Env, row: MeetingRow, actor: Actor, announce: Announce): Promise<boolean> {
	const status = row.status as MeetingStatus;
	if (!mayRemove(status, actor)) throw new RefusedMove(`${actor} may not remove a ${status} meeting`);
	const gone = await db(env)
		.delete(meetings)
		.where(and(eq(meetings.id, row.id), eq(meetings.status, status)))
		.returning({ id: meetings.id })
		.get();
	if (!gone) return false;
	await announce(row, { from: status, to: null, actor, at: nowIso() }, { before: initialState(status), after: initialState(status) });
	return true;
}

/**
 * Auto-join could not start the plan's bot: `data.auto_join_error` is set while the plan is still
 * `scheduled`, and announced as a step that stays `scheduled`, with the error as its reason.
 */
export async function noteAutoJoinError(env: Env, meetingId: number, error: string, announce: Announce): Promise<void> {
	const text = sanitize(error);
	const now = nowIso();
	const row = await db(env)
		.update(meetings)
		.set({ data: sql`json_set(${meetings.data}, '$.auto_join_error', ${text})`, updatedAt: now })
		.where(and(eq(meetings.id, meetingId), eq(meetings.status, "scheduled")))
		.returning()
		.get();
	if (!row) return;
	const plan = initialState("scheduled");
	await announce(
		row,
		{ from: "scheduled", to: "scheduled", reason: text, actor: "scheduler", at: now, note: true },
		{ before: plan, after: plan },
	);
}
