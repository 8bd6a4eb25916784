/**
 * Drizzle store: the connections due for a background sync.
 * Signed-in calendars are synced here too: this is the polling that stands in for change
 * notifications on a deployment without a public https address (oauth/push.ts).
 * Background discovery: on each scheduled tick, the enabled connections whose `next_sync_at`
 * has come are synced, a few at a time. Each sync sets the next time one interval on, with
 * jitter (see `nextSyncAt`), so accounts spread over the interval instead of all fetching at
 * once; a tick takes at most a bounded batch and leaves the rest to the next tick. Then the
 * imported plans whose day has come are armed for auto-join (see auto-join-arming.ts).
 */
import { and, asc, eq, isNotNull, lte, ne, or } from "drizzle-orm";
import { db } from "../db";
import { calendarConnections } from "../db/schema";
import type { Env } from "../env";
import { setting } from "../settings/deployment-defaults";
import { armDueCalendarPlans } from "./auto-join-arming";
import { syncConnection, takeSyncLease } from "./sync";

const PER_TICK = 25;
const AT_ONCE = 4;

/** One scheduled tick of the calendar side: due syncs, then due armings (even with sync unwired). */
export async function calendarTick(env: Env, now: Date): Promise<{ synced: number; armed: number }> {
	const { synced } = await syncDueCalendars(env, now);
	const { armed } = await armDueCalendarPlans(env, now);
	return { synced, armed };
}

export async function syncDueCalendars(env: Env, now: Date): Promise<{ synced: number }> {
	if (!setting(env, "CALENDAR_SYNC_ENABLED")) return { synced: 0 };
	const due = await db(env)
		.select()
		.from(calendarConnections)
		.where(
			and(
				eq(calendarConnections.enabled, true),
				or(isNotNull(calendarConnections.icsUrlSealed), ne(calendarConnections.kind, "ics")),
				lte(calendarConnections.nextSyncAt, now.toISOString()),
			),
		)
		.orderBy(asc(calendarConnections.nextSyncAt))
		.limit(PER_TICK)
		.all();
	let synced = 0;
	for (let i = 0; i < due.length; i += AT_ONCE) {
		await Promise.all(
			due.slice(i, i + AT_ONCE).map(async (row) => {
				if (!(await takeSyncLease(env, row.id))) return;
				await syncConnection(env, row, { now });
				synced++;
			}),
		);
	}
	return { synced };
}
