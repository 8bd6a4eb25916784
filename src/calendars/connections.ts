import { and, eq, sql } from "drizzle-orm";
import { db } from "../db";
import { type CalendarConnectionRow, calendarConnections } from "../db/schema";
import type { Env } from "../env";
import { conflict, notFound } from "../errors";
import { outboundPolicy } from "../outbound/url-guard";
import { seal } from "../settings/secret-box";
import {
	defaultBotName,
	findConnection,
	MAX_ACTIVE_CONNECTIONS,
	MAX_CONNECTIONS,
	newConnectionId,
	nextSyncAt,
	type SyncStamp,
} from "./calendar-store";
import { acceptIcsUrl, maskIcsUrl } from "./ics-url";
import { syncConnection, takeSyncLease } from "./sync";

/**
 * Creating, changing and syncing an account's calendar connections, for the calendar routes and
 * their compatibility aliases alike (docs/api.md#calendars).
 */

/** Seals an accepted feed address; returns the columns that store it. */
export async function feedColumns(env: Env, raw: string) {
	const clear = acceptIcsUrl(raw, outboundPolicy(env));
	return { icsUrlSealed: await seal(env.SECRETS_KEY, clear), icsUrlMasked: maskIcsUrl(clear) };
}

const tooManyActive = () =>
	conflict(`At most ${MAX_ACTIVE_CONNECTIONS} active calendar connections per account; disable or delete one first`);
const tooMany = () => conflict(`At most ${MAX_CONNECTIONS} calendar connections per account, disabled ones included; delete one first`);

/**
 * Creates an enabled connection unless the account already has the most active ones (10) or the
 * most in all (50), 409 either way. The count and the insert are one statement, so concurrent
 * requests cannot pass the limit together.
 */
export async function createConnection(
	env: Env,
	userId: number,
	now: Date,
	fields: { name: string; icsUrl: string; autoJoin: boolean; botName: string | undefined },
): Promise<CalendarConnectionRow> {
	const feed = await feedColumns(env, fields.icsUrl);
	const botName = fields.botName ?? (await defaultBotName(env, userId));
	const id = newConnectionId();
	const inserted = await env.DB.prepare(
		`INSERT INTO calendar_connections (id, user_id, name, ics_url_sealed, ics_url_masked, auto_join, bot_name, enabled, next_sync_at, created_at, updated_at)
		 SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?
		 WHERE (SELECT count(*) FROM calendar_connections WHERE user_id = ? AND enabled = 1) < ?
		   AND (SELECT count(*) FROM calendar_connections WHERE user_id = ?) < ?
		 RETURNING id`,
	)
		.bind(
			id,
			userId,
			fields.name,
			feed.icsUrlSealed,
			feed.icsUrlMasked,
			fields.autoJoin ? 1 : 0,
			botName,
			nextSyncAt(env, now, true),
			now.toISOString(),
			now.toISOString(),
			userId,
			MAX_ACTIVE_CONNECTIONS,
			userId,
			MAX_CONNECTIONS,
		)
		.first();
	if (!inserted) {
		const total = await env.DB.prepare("SELECT count(*) AS n FROM calendar_connections WHERE user_id = ?").bind(userId).first<number>("n");
		throw (total ?? 0) >= MAX_CONNECTIONS ? tooMany() : tooManyActive();
	}
	return findConnection(env, userId, id);
}

/**
 * Changes a connection. Enabling a disabled one makes it active, so it is refused (409) while
 * the account already has the most active ones; the check is part of the update, race-free.
 */
export async function updateConnection(env: Env, row: CalendarConnectionRow, values: Partial<CalendarConnectionRow>, now: Date) {
	const enabling = values.enabled === true && !row.enabled;
	const roomForOneMore = sql`(SELECT count(*) FROM calendar_connections WHERE user_id = ${row.userId} AND enabled = 1 AND id <> ${row.id}) < ${MAX_ACTIVE_CONNECTIONS}`;
	const updated = await db(env)
		.update(calendarConnections)
		.set({ ...values, updatedAt: now.toISOString() })
		.where(and(eq(calendarConnections.id, row.id), enabling ? roomForOneMore : undefined))
		.returning()
		.get();
	if (updated) return updated;
	if (
		enabling &&
		(await db(env).select({ id: calendarConnections.id }).from(calendarConnections).where(eq(calendarConnections.id, row.id)).get())
	) {
		throw tooManyActive();
	}
	throw notFound("Calendar not found");
}

/** A sync started by a request: waits briefly for a background sync of the same connection. */
export async function syncNow(env: Env, row: CalendarConnectionRow, now: Date): Promise<SyncStamp> {
	for (let waited = 0; !(await takeSyncLease(env, row.id)); waited += 250) {
		if (waited >= 10_000) throw conflict("A sync of this calendar is already running; try again shortly");
		await new Promise((r) => setTimeout(r, 250));
	}
	const fresh = await findConnection(env, row.userId, row.id);
	return syncConnection(env, fresh, { now });
}
