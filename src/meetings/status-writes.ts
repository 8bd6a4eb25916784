/**
 * Drizzle store: meeting records' status, created, moved and removed (their `data` keys through meeting-data.ts's builder).
 * The one write path for a meeting's `status`: every writer (the API, launch, auto-join, the
 * calendar, the room) creates, moves or removes a record here. Each write is checked against
 * the move table first, made only while the record is still where the writer saw it, and then
 * handed to an `Announce`, which tells the world (the room's /ws watchers and webhook events).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { db } from "../db";
import { type MeetingRow, meetings, workspaceMembers } from "../db/schema";
import type { Env } from "../env";
import { errorName } from "../error-text";
import { statusStepMessage } from "../live/feed-messages";
import { accountObject, liveFeed, meetingRoom } from "../objects";
import { loadSettings, resolveSettings } from "../settings/account-settings";
import type { WebhookEvent } from "../webhooks/deliver";
import { buildEnvelope, type MeetingWebhookEventType, TRANSITION_SOURCE, webhookEventsFor } from "../webhooks/envelope";
import { failureDetail, sanitize } from "./failure-detail";
import { type MeetingDataPatch, meetingDataPatch, patchMeetingData } from "./meeting-data";
import { deleteMeetingObjects } from "./meeting-objects";
import { meetingView, nowIso } from "./meeting-store";
import {
	type Actor,
	initialState,
	isTerminal,
	type MeetingState,
	type MeetingStatus,
	mayCreate,
	mayRemove,
	type StatusStep,
	type TransitionRequest,
	transition,
} from "./status-machine";

export type { StatusStep } from "./status-machine";

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

/** Throws unless the move table lets `actor` create a record in `status`. */
export function checkCreate(status: MeetingStatus, actor: Actor): void {
	if (!mayCreate(status, actor)) throw new RefusedMove(`${actor} may not create a ${status} meeting`);
}

/** Throws unless the move table lets `actor` remove a record in `status`. */
export function checkRemove(status: MeetingStatus, actor: Actor): void {
	if (!mayRemove(status, actor)) throw new RefusedMove(`${actor} may not remove a ${status} meeting`);
}

export interface MoveRequest {
	meetingId: number;
	/** What the writer knows of the meeting; `initialState(status)` when it keeps no more. */
	current: MeetingState;
	ask: TransitionRequest & { reason?: string };
	/** The statuses the record must still be in for the write; by default the current one. */
	guard?: readonly MeetingStatus[];
	/** Other columns written in the same statement (a plan's edit, a claim's bot fields). */
	values?: MeetingColumns;
	/** Keys of `data` set in the same statement (a bot's help request, its diagnostics); null removes the key. */
	data?: DataFields;
}

/** Top-level keys of a meeting's `data` set with a move: the one writer's patch (src/meetings/meeting-data.ts). */
export type DataFields = MeetingDataPatch;

export type MoveOutcome =
	| { ok: false; why: "refused"; detail: string }
	/** The record was no longer in a guarded status: nothing was written. */
	| { ok: false; why: "moved_on" }
	/** `row` is null when the move restated the status and there were no `values` to write. */
	| { ok: true; row: MeetingRow | null; state: MeetingState; step: StatusStep | null };

/**
 * Checks a move against the table, writes it (with `values`) while the record is still in a
 * guarded status, and announces it. A failed meeting gets its cause in `data.failure_detail`,
 * and the fleet's cause, when it names one, in `data.failure_cause`.
 * Restating the current status writes `values` only and announces nothing.
 */
export async function moveMeeting(env: Env, request: MoveRequest, announce: Announce): Promise<MoveOutcome> {
	const { current, ask } = request;
	const result = transition(current, ask);
	if (!result.ok) return { ok: false, why: "refused", detail: result.detail };
	const next = result.state;
	if (!result.changed && !request.values && !request.data) return { ok: true, row: null, state: next, step: null };
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
	// When the bot began its join, the start of its time to admission (join-health.ts); a later `joining` keeps the first.
	const joining = result.changed && next.status === "joining" ? { joiningAt: sql`coalesce(${meetings.joiningAt}, ${now})` } : {};
	const failed = next.status === "failed" && result.changed;
	const detail = failed ? failureDetail(ask.reason, next.completion_reason, ask.failure_cause) : null;
	// The fleet's cause sits beside the sentence.
	const cause = failed ? ask.failure_cause : undefined;
	// A meeting that moves on from waiting for a host no longer says what it waits on (placement-record.ts).
	const unplaced = result.changed && next.status !== "requested";
	// A bot's help request and diagnostics (meeting-room/help.ts) go in the same statement, after the move's own keys.
	const data = meetingDataPatch({
		...(unplaced ? { placement: null } : {}),
		...(detail ? { failure_detail: detail } : {}),
		...(cause ? { failure_cause: cause } : {}),
		...request.data,
	});
	const row = await db(env)
		.update(meetings)
		.set({ ...columns, ...joining, ...(data ? { data } : {}), updatedAt: now })
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
	checkCreate(status, actor);
	const row = await db(env).insert(meetings).values(values).returning().get();
	if (!row) throw new Error("meeting was not stored");
	await announce(row, { from: null, to: status, actor, at: row.updatedAt }, { before: initialState(status), after: initialState(status) });
	return row;
}

/** Removes a record still in the status it was seen in, and announces it, `to: null`; false when it moved on. */
export async function removeMeeting(env: Env, row: MeetingRow, actor: Actor, announce: Announce): Promise<boolean> {
	const status = row.status as MeetingStatus;
	checkRemove(status, actor);
	const gone = await db(env)
		.delete(meetings)
		.where(and(eq(meetings.id, row.id), eq(meetings.status, status)))
		.returning({ id: meetings.id })
		.get();
	if (!gone) return false;
	// Whatever the bucket kept for it goes with the record (a plan has none yet; any removal passes here).
	await deleteMeetingObjects(env, row.userId, row.id);
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
	const row = await patchMeetingData(
		env,
		meetingId,
		{ auto_join_error: text },
		{
			where: eq(meetings.status, "scheduled"),
			updatedAt: now,
		},
	);
	if (!row) return;
	const plan = initialState("scheduled");
	await announce(
		row,
		{ from: "scheduled", to: "scheduled", reason: text, actor: "scheduler", at: now, note: true },
		{ before: plan, after: plan },
	);
}

/** A step's webhook event of one type, its body built once so every attempt sends the same bytes. */
export async function stepWebhookEvent(row: MeetingRow, step: StatusStep, eventType: MeetingWebhookEventType): Promise<WebhookEvent> {
	const envelope = await buildEnvelope({
		event_type: eventType,
		meeting: meetingView(row),
		status_change: {
			from: step.from,
			to: step.to,
			reason: step.reason ?? null,
			timestamp: step.at,
			transition_source: TRANSITION_SOURCE[step.actor],
		},
	});
	return { event_id: envelope.event_id, event_type: eventType, meeting_id: row.id, body: JSON.stringify(envelope) };
}

/** A step made in bulk, with its record (for a removal, the record as it was). */
export interface PlanStep {
	row: MeetingRow;
	step: StatusStep;
}

/**
 * One `meeting.status` frame for a user's LiveFeed. `link` is set for a record just created:
 * nobody can watch it by id yet, but a socket may hold that link for an older meeting on it.
 */
export interface PlanFrame {
	meetingId: number;
	link: { platform: string; native_id: string } | null;
	text: string;
}

/** Events per call to the account's outbox: RPC messages stay small, and a first sync of 2,000 plans is a few calls. */
const EVENTS_PER_HANDOVER = 500;

/**
 * Announces the steps one calendar sync made in bulk (plans created and removed with batched
 * SQL). Calling each meeting's room would cost a Durable Object call per plan, past the
 * per-invocation subrequest cap on a first sync; so the webhook events go to the owner's
 * outbox in a few calls (stored there before the call returns, delivered by its alarm, the
 * event filter applied per attempt as for every event), and the frames go once to each feed
 * that may watch them: the owner's, and those of members of a workspace a plan is bound to.
 * A failure here is logged, not thrown: the plans are already written.
 */
export async function announcePlanSteps(env: Env, userId: number, steps: PlanStep[]): Promise<void> {
	if (steps.length === 0) return;
	try {
		await handOverWebhookEvents(env, userId, steps);
	} catch (err) {
		console.error("calendar step webhook events not handed over", userId, errorName(err));
	}
	try {
		await tellFeeds(env, userId, steps);
	} catch (err) {
		console.warn("calendar step frames not delivered", userId, errorName(err));
	}
}

async function handOverWebhookEvents(env: Env, userId: number, steps: PlanStep[]): Promise<void> {
	// Without a target every attempt would end `no_target`, unrecorded: building the events is wasted work.
	const target = (await resolveSettings(env, await loadSettings(env, userId))).webhook;
	if (!target.url) return;
	const events: WebhookEvent[] = [];
	for (const { row, step } of steps) {
		for (const eventType of webhookEventsFor({ status: step.from, reached_stage: null }, step.to, step.note)) {
			events.push(await stepWebhookEvent(row, step, eventType));
		}
	}
	const account = accountObject(env, userId);
	for (let i = 0; i < events.length; i += EVENTS_PER_HANDOVER)
		await account.takeWebhookEvents(userId, events.slice(i, i + EVENTS_PER_HANDOVER));
}

async function tellFeeds(env: Env, ownerId: number, steps: PlanStep[]): Promise<void> {
	const frames: PlanFrame[] = steps.map(({ row, step }) => ({
		meetingId: row.id,
		link: step.from === null && row.nativeMeetingId ? { platform: row.platform, native_id: row.nativeMeetingId } : null,
		text: JSON.stringify(statusStepMessage(row, step)),
	}));
	const workspaces = [...new Set(steps.flatMap(({ row }) => (row.workspaceId ? [row.workspaceId] : [])))];
	const members = workspaces.length
		? await db(env)
				.select({ userId: workspaceMembers.userId })
				.from(workspaceMembers)
				.where(inArray(workspaceMembers.workspaceId, workspaces))
				.all()
		: [];
	// A link is matched for the owner only: a plan just made is bound to no workspace, so only they may read it.
	const bound = frames.flatMap((frame, i) => (steps[i]?.row.workspaceId ? [{ ...frame, link: null }] : []));
	const others = [...new Set(members.map((m) => m.userId))].filter((user) => user !== ownerId);
	await Promise.all([
		liveFeed(env, ownerId).deliverPlanSteps(frames),
		...others.map((user) => liveFeed(env, user).deliverPlanSteps(bound)),
	]);
}
