/**
 * Deleting a connection: a signed-in one is signed out at its provider (oauth/sign-out.ts), the row goes at once (and with it the sealed feed address and the
 * event mappings), then its plans are cleaned up (docs/api.md#calendars). A meeting another
 * calendar also plans stays and loses this source; an adopted manual plan stays; a plan only
 * this calendar made goes; live and terminal meetings are not touched.
 */
import type { CalendarConnectionRow } from "../db/schema";
import type { Env } from "../env";
import { meetingsById } from "../meetings/meeting-store";
import { announcePlanSteps } from "../meetings/status-writes";
import { armImportedPlans, type RemovedPlan } from "./auto-join-arming";
import { deleteConnection, deletePlan, type PlanRemoval, refreshSources, removalSteps, runBatched } from "./calendar-plans";
import { eventMappingsOf, plannersOf } from "./calendar-store";
import { signOut } from "./oauth/sign-out";

export async function disconnectCalendar(env: Env, connection: CalendarConnectionRow): Promise<void> {
	// A signed-in calendar's channel is stopped and its grant revoked while its tokens are still here.
	await signOut(env, connection);
	const mine = await eventMappingsOf(env, connection.id);
	const meetingIds = [...new Set(mine.flatMap((m) => (m.meetingId === null ? [] : [m.meetingId])))];
	const rows = await meetingsById(env, meetingIds);
	const links = await plannersOf(env, meetingIds);
	const sharedIds = new Set(links.flatMap((o) => (o.connectionId !== connection.id && o.meetingId !== null ? [o.meetingId] : [])));

	const now = new Date().toISOString();
	const kept: number[] = [];
	const removed: RemovedPlan[] = [];
	const removals: PlanRemoval[] = [];
	// Mappings first (not left to the cascade), so the refreshes below see only the other calendars.
	const statements: D1PreparedStatement[] = deleteConnection(env, connection.id);
	for (const mapping of mine) {
		const row = mapping.meetingId === null ? undefined : rows.get(mapping.meetingId);
		if (!row || (row.status !== "idle" && row.status !== "scheduled")) continue;
		if (sharedIds.has(row.id) || mapping.adopted) {
			statements.push(refreshSources(env, row.id, now));
			kept.push(row.id);
		} else {
			removals.push({ row, statement: statements.push(deletePlan(env, row)) - 1 });
			removed.push({ row, armedFor: mapping.armedFor });
		}
	}
	const results = await runBatched(env, statements);
	await announcePlanSteps(env, connection.userId, removalSteps(removals, results));
	await armImportedPlans(env, kept, removed, { now: new Date() });
}
