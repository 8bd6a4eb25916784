/**
 * Raw SQL store (batches: a sync's writes go to D1 in a few batched transactions, and their
 * results are read by position). The meeting side of calendar import: the SQL that creates, moves and removes imported plans
 * and keeps their `data.calendar_sources`, `auto_join` and `bot_name` equal to what their
 * calendar events say (auto-join arming is in auto-join-arming.ts). Statements that write `data`
 * keys are built by meeting-data.ts, the one writer of `data`.
 *
 * Sources are derived in SQL from the event mappings, so two connections syncing one shared
 * meeting at once cannot lose each other's source.
 */
import { getTableColumns, inArray, sql } from "drizzle-orm";
import { type CalendarConnectionRow, type MeetingRow, meetings } from "../db/schema";
import type { Env } from "../env";
import { meetingDataUpdate } from "../meetings/meeting-data";
import type { ParsedMeetingLink } from "../meetings/meeting-link";
import { nowIso } from "../meetings/meeting-store";
import { initialState, type MeetingStatus, PLANNED_STATUSES } from "../meetings/status-machine";
import { announceInRoom, checkCreate, checkRemove, moveMeeting, type PlanStep } from "../meetings/status-writes";
import { calendarSource } from "./calendar-store";
import type { ImportedEvent } from "./ics-import";

export interface PlannedEvent extends ImportedEvent {
	occurrence: { start: Date; end: Date };
}

const PLANNED = "status IN ('idle', 'scheduled')";

/** A write meeting-data.ts built (the one writer of `data`), as a statement for this file's batches. */
const prepared = (env: Env, query: { sql: string; params: unknown[] }) => env.DB.prepare(query.sql).bind(...query.params);

export function linkColumns(link: ParsedMeetingLink | null) {
	return {
		platform: link?.platform ?? "unknown",
		nativeMeetingId: link?.native_meeting_id ?? null,
		constructedMeetingUrl: link?.constructed_meeting_url ?? null,
		passcode: link?.passcode ?? null,
	};
}

/**
 * A new plan for an event of one connection: its only source (what `refreshSources` would
 * write). The move table is asked first (`checkCreate`); `creationSteps` announces it.
 */
export function insertPlan(env: Env, connection: CalendarConnectionRow, event: PlannedEvent, now: string) {
	checkCreate("scheduled", "calendar");
	const link = linkColumns(event.link);
	const data: Record<string, unknown> = { attendees: event.attendees, calendar_sources: [calendarSource(connection)] };
	if (event.title) data.title = event.title;
	const { userId, autoJoin, botName } = connection;
	return env.DB.prepare(
		`INSERT INTO meetings (user_id, platform, native_meeting_id, constructed_meeting_url, passcode, status, auto_join, scheduled_at, bot_name, data, created_at, updated_at)
		 VALUES (?, ?, ?, ?, ?, 'scheduled', ?, ?, ?, ?, ?, ?) RETURNING *`,
	).bind(
		userId,
		link.platform,
		link.nativeMeetingId,
		link.constructedMeetingUrl,
		link.passcode,
		autoJoin ? 1 : 0,
		event.occurrence.start.toISOString(),
		botName,
		JSON.stringify(data),
		now,
		now,
	);
}

/**
 * Moves a plan to its event: time, link, title, attendees. An adopted manual plan keeps a title
 * the user gave it; `keepLink` leaves the link alone when the event's new one is held elsewhere.
 * The status is not written here: an `idle` plan becomes `scheduled` through the one status
 * write path first (see `scheduleIdlePlan`).
 */
export function updatePlan(
	env: Env,
	meetingId: number,
	event: PlannedEvent,
	options: { keepTitle: boolean; keepLink: boolean },
	now: string,
) {
	const link = linkColumns(event.link);
	return prepared(
		env,
		meetingDataUpdate(
			env,
			meetingId,
			{ ...(options.keepTitle ? {} : { title: event.title }), attendees: event.attendees },
			{
				set: { ...(options.keepLink ? {} : link), scheduledAt: event.occurrence.start.toISOString() },
				where: inArray(meetings.status, PLANNED_STATUSES),
				updatedAt: now,
			},
		),
	);
}

/** An idle plan an event now times: `idle` → `scheduled` by the calendar, checked and announced like every step. */
export async function scheduleIdlePlan(env: Env, row: MeetingRow, event: PlannedEvent): Promise<void> {
	if (row.status !== "idle") return;
	await moveMeeting(
		env,
		{
			meetingId: row.id,
			current: initialState("idle"),
			ask: { to: "scheduled", actor: "calendar" },
			values: { scheduledAt: event.occurrence.start.toISOString() },
		},
		announceInRoom(env),
	);
}

/**
 * Removes a plan that only calendars made, once no calendar plans it any more (the move table
 * is asked first: `checkRemove`). Its result names the status the plan left, when it went.
 */
export function deletePlan(env: Env, row: MeetingRow) {
	checkRemove(row.status as MeetingStatus, "calendar");
	return env.DB.prepare(`DELETE FROM meetings WHERE id = ? AND ${PLANNED} RETURNING status`).bind(row.id);
}

/** A plan's removal among batched statements: which statement removes it. */
export interface PlanRemoval {
	row: MeetingRow;
	statement: number;
}

/** The `to: null` steps of the removals that happened (a plan that moved on meanwhile stayed). */
export function removalSteps(removals: PlanRemoval[], results: D1Result[]): PlanStep[] {
	const at = nowIso();
	return removals.flatMap(({ row, statement }) => {
		const gone = results[statement]?.results[0] as { status?: MeetingStatus } | undefined;
		return gone?.status ? [{ row, step: { from: gone.status, to: null, actor: "calendar" as const, at } }] : [];
	});
}

const meetingColumns = Object.entries(getTableColumns(meetings));

/** The record an `insertPlan` returned, mapped as drizzle maps it (so it need not be read again). */
export function planRowOf(result: D1Result | null): MeetingRow | null {
	const raw = result?.results[0] as Record<string, unknown> | undefined;
	if (!raw) return null;
	const row = Object.fromEntries(
		meetingColumns.map(([key, column]) => {
			const value = raw[column.name];
			return [key, value === null || value === undefined ? null : column.mapFromDriverValue(value)];
		}),
	);
	return row as MeetingRow;
}

/** The `from: null` steps of plans the calendar just made. */
export function creationSteps(rows: MeetingRow[]): PlanStep[] {
	return rows.map((row) => ({ row, step: { from: null, to: "scheduled" as const, actor: "calendar" as const, at: row.updatedAt } }));
}

/**
 * Sets a planned meeting's `data.calendar_sources` from the events that plan it, in connection
 * order; an imported (not adopted) plan also takes `auto_join` (any source that auto-joins) and
 * `bot_name` (the first auto-joining source's, else the first source's) from them.
 */
export function refreshSources(env: Env, meetingId: number, now: string) {
	const sources = sql.raw("FROM calendar_events e JOIN calendar_connections c ON c.id = e.connection_id WHERE e.meeting_id = meetings.id");
	const unsourced = sql`(SELECT count(*) ${sources}) = 0`;
	const adoptedOrUnsourced = sql`EXISTS (SELECT 1 ${sources} AND e.adopted = 1) OR ${unsourced}`;
	const calendarSources = sql`CASE WHEN ${unsourced} THEN NULL ELSE (SELECT json_group_array(json(src)) FROM (
		SELECT json_object('id', c.id, 'name', c.name, 'auto_join', json(CASE WHEN c.auto_join THEN 'true' ELSE 'false' END), 'bot_name', c.bot_name) AS src
		${sources} ORDER BY c.created_at, c.id)) END`;
	return prepared(
		env,
		meetingDataUpdate(
			env,
			meetingId,
			{ calendar_sources: calendarSources },
			{
				set: {
					autoJoin: sql`CASE WHEN ${adoptedOrUnsourced} THEN auto_join ELSE EXISTS (SELECT 1 ${sources} AND c.auto_join = 1) END`,
					botName: sql`CASE WHEN ${adoptedOrUnsourced} THEN bot_name
					ELSE (SELECT c.bot_name ${sources} ORDER BY c.auto_join DESC, c.created_at, c.id LIMIT 1) END`,
				},
				where: inArray(meetings.status, PLANNED_STATUSES),
				updatedAt: now,
			},
		),
	);
}

export interface MappingWrite {
	connectionId: string;
	uid: string;
	userId: number;
	meetingId: number | null;
	state: "planned" | "deferred" | "cancelled";
	eventFingerprint: string | null;
	settingsFingerprint: string | null;
	adopted: boolean;
}

export function upsertMapping(env: Env, m: MappingWrite, now: string) {
	return env.DB.prepare(
		`INSERT INTO calendar_events (connection_id, uid, user_id, meeting_id, state, event_fingerprint, settings_fingerprint, adopted, updated_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT (connection_id, uid) DO UPDATE SET meeting_id = excluded.meeting_id, state = excluded.state,
			event_fingerprint = excluded.event_fingerprint, settings_fingerprint = excluded.settings_fingerprint,
			adopted = excluded.adopted, updated_at = excluded.updated_at,
			armed_for = CASE WHEN calendar_events.meeting_id IS excluded.meeting_id THEN calendar_events.armed_for ELSE NULL END`,
	).bind(m.connectionId, m.uid, m.userId, m.meetingId, m.state, m.eventFingerprint, m.settingsFingerprint, m.adopted ? 1 : 0, now);
}

export function deleteMapping(env: Env, connectionId: string, uid: string) {
	return env.DB.prepare("DELETE FROM calendar_events WHERE connection_id = ? AND uid = ?").bind(connectionId, uid);
}

/** A connection's removal, mappings first (not left to the cascade), so refreshes batched after it see only the other calendars. */
export function deleteConnection(env: Env, connectionId: string): D1PreparedStatement[] {
	return [
		env.DB.prepare("DELETE FROM calendar_events WHERE connection_id = ?").bind(connectionId),
		env.DB.prepare("DELETE FROM calendar_connections WHERE id = ?").bind(connectionId),
	];
}

/** Runs statements as one D1 batch (one transaction). */
export const runBatch = (env: Env, statements: D1PreparedStatement[]): Promise<D1Result[]> => env.DB.batch(statements);

/** Runs statements in D1 batches (each batch is one transaction). */
export async function runBatched(env: Env, statements: D1PreparedStatement[], size = 200): Promise<D1Result[]> {
	const results: D1Result[] = [];
	for (let i = 0; i < statements.length; i += size) results.push(...(await env.DB.batch(statements.slice(i, i + size))));
	return results;
}
