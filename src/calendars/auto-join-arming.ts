/**
 * Raw SQL store (batches: the arming marks of a sync go to D1 in batches of 200).
 * Auto-join of imported plans, armed in each meeting's room exactly as a plan made through the
 * API is (MeetingRoom.plan), but only once the plan starts within a day (CALENDAR_ARM_AHEAD_S).
 * A sync of thousands of events then wakes only the rooms of the next day's meetings; the
 * scheduled sweep arms the others as their day comes. `calendar_events.armed_for` remembers
 * which start each meeting was armed for, so a moved plan is re-armed and an unchanged one is not.
 */

import { readInIdChunks } from "../db/id-chunks";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { hasJoinableLink, LATE_LIMIT_MS, mayAutoJoin } from "../meetings/auto-join-rule";
import { meetingsById } from "../meetings/meeting-store";
import { meetingRoom } from "../objects";
import { setting } from "../settings/deployment-defaults";

export interface ArmingContext {
	now: Date;
}

export interface RemovedPlan {
	row: MeetingRow;
	/** The start its auto-join was armed for, if it was. */
	armedFor: string | null;
}

const ROOMS_AT_ONCE = 16;

export function armAheadMs(env: Env): number {
	return Math.max(600, setting(env, "CALENDAR_ARM_AHEAD_S")) * 1000;
}

/**
 * Brings each meeting's room in line with its plan: armed when due soon, cancelled when no
 * longer wanted. `unknownRooms` are meetings whose room may hold an arming this table does not
 * know of (a manual plan the calendar just adopted and moved): armed at once, whatever the
 * window, so an old arming can never fire at the old time.
 */
export async function armImportedPlans(
	env: Env,
	meetingIds: number[],
	removed: RemovedPlan[],
	ctx: ArmingContext,
	unknownRooms: ReadonlySet<number> = new Set(),
): Promise<void> {
	const rows = await meetingsById(env, meetingIds);
	const armed = await armedTimes(env, meetingIds);
	const horizon = ctx.now.getTime() + armAheadMs(env);
	const calls: { row: MeetingRow; arm: boolean }[] = [];
	for (const row of rows.values()) {
		const due = mayAutoJoin(row) && (unknownRooms.has(row.id) || Date.parse(row.scheduledAt ?? "") <= horizon);
		const was = unknownRooms.has(row.id) ? "unknown" : (armed.get(row.id) ?? null);
		if (due && was !== row.scheduledAt) calls.push({ row, arm: true });
		else if (!due && was !== null) calls.push({ row, arm: false });
	}
	for (const { row, armedFor } of removed) if (armedFor !== null) calls.push({ row, arm: false });

	for (let i = 0; i < calls.length; i += ROOMS_AT_ONCE) {
		await Promise.all(
			calls.slice(i, i + ROOMS_AT_ONCE).map(({ row, arm }) =>
				meetingRoom(env, row.id).plan({
					meetingId: row.id,
					userId: row.userId,
					scheduledAt: arm ? row.scheduledAt : null,
					autoJoin: row.autoJoin,
					joinable: hasJoinableLink(row),
				}),
			),
		);
	}
	const marks = calls
		.filter(({ row }) => rows.has(row.id))
		.map(({ row, arm }) =>
			env.DB.prepare("UPDATE calendar_events SET armed_for = ? WHERE meeting_id = ?").bind(arm ? row.scheduledAt : null, row.id),
		);
	for (let i = 0; i < marks.length; i += 200) await env.DB.batch(marks.slice(i, i + 200));
}

async function armedTimes(env: Env, meetingIds: number[]): Promise<Map<number, string>> {
	const rows = await readInIdChunks(meetingIds, async (chunk) => {
		const found = await env.DB.prepare(
			`SELECT meeting_id, max(armed_for) AS armed_for FROM calendar_events WHERE meeting_id IN (${chunk.map(() => "?").join(",")}) GROUP BY meeting_id`,
		)
			.bind(...chunk)
			.all<{ meeting_id: number; armed_for: string | null }>();
		return found.results;
	});
	return new Map(rows.flatMap((r) => (r.armed_for !== null ? [[r.meeting_id, r.armed_for] as const] : [])));
}

/**
 * The sweep, from the scheduled handler: imported plans that now start within the arming
 * window (and not past the auto-join late limit) and are not armed for their start yet. The
 * WHERE clause is mayAutoJoin in SQL. Bounded per tick; the next tick takes the rest.
 */
export async function armDueCalendarPlans(env: Env, now: Date): Promise<{ armed: number }> {
	const due = await env.DB.prepare(
		`SELECT DISTINCT m.id AS id FROM meetings m
		 JOIN calendar_events e ON e.meeting_id = m.id
		 WHERE m.status = 'scheduled' AND m.auto_join = 1 AND m.platform != 'unknown' AND m.native_meeting_id IS NOT NULL
			AND m.scheduled_at > ? AND m.scheduled_at <= ?
			AND NOT EXISTS (SELECT 1 FROM calendar_events x WHERE x.meeting_id = m.id AND x.armed_for = m.scheduled_at)
		 LIMIT 500`,
	)
		.bind(new Date(now.getTime() - LATE_LIMIT_MS).toISOString(), new Date(now.getTime() + armAheadMs(env)).toISOString())
		.all<{ id: number }>();
	if (due.results.length > 0)
		await armImportedPlans(
			env,
			due.results.map((r) => r.id),
			[],
			{ now },
		);
	return { armed: due.results.length };
}
