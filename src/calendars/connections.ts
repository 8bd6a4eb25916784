import type { CalendarConnectionRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError, conflict, notFound } from "../errors";
import { outboundPolicy } from "../outbound/url-guard";
import { setting } from "../settings/deployment-defaults";
import { seal } from "../settings/secret-box";
import {
	connectionExists,
	defaultBotName,
	findConnection,
	MAX_ACTIVE_CONNECTIONS,
	MAX_CONNECTIONS,
	newConnectionId,
	nextSyncAt,
	type SyncStamp,
	updateConnectionRow,
} from "./calendar-store";
import { connectionCount, insertConnectionWithinLimits } from "./connection-writes";
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
	const inserted = await insertConnectionWithinLimits(env, {
		id,
		userId,
		name: fields.name,
		icsUrlSealed: feed.icsUrlSealed,
		icsUrlMasked: feed.icsUrlMasked,
		autoJoin: fields.autoJoin,
		botName,
		nextSyncAt: nextSyncAt(env, now, true),
		now: now.toISOString(),
	});
	if (!inserted) {
		const total = await connectionCount(env, userId);
		throw total >= MAX_CONNECTIONS ? tooMany() : tooManyActive();
	}
	return findConnection(env, userId, id);
}

/** A signed-in calendar's new connection, within the same limits; null when the account is at one (nothing stored). */
export async function createSignedInConnection(
	env: Env,
	userId: number,
	now: Date,
	fields: {
		kind: "google" | "microsoft";
		name: string;
		account: string | null;
		oauthTokensSealed: string;
		autoJoin: boolean;
		botName: string | null;
	},
): Promise<CalendarConnectionRow | null> {
	const id = newConnectionId();
	const inserted = await insertConnectionWithinLimits(env, {
		id,
		userId,
		name: fields.name,
		icsUrlSealed: null,
		icsUrlMasked: null,
		autoJoin: fields.autoJoin,
		botName: fields.botName ?? (await defaultBotName(env, userId)),
		nextSyncAt: nextSyncAt(env, now),
		now: now.toISOString(),
		kind: fields.kind,
		account: fields.account,
		oauthTokensSealed: fields.oauthTokensSealed,
	});
	return inserted ? findConnection(env, userId, id) : null;
}

/**
 * Changes a connection. Enabling a disabled one makes it active, so it is refused (409) while
 * the account already has the most active ones; the check is part of the update, race-free.
 */
export async function updateConnection(env: Env, row: CalendarConnectionRow, values: Partial<CalendarConnectionRow>, now: Date) {
	const enabling = values.enabled === true && !row.enabled;
	const updated = await updateConnectionRow(env, row, { ...values, updatedAt: now.toISOString() }, enabling);
	if (updated) return updated;
	if (enabling && (await connectionExists(env, row.id))) throw tooManyActive();
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

/**
 * The first sync of a connection that has just become syncable (created, given a new feed
 * address, or enabled), run in the request so that its plans exist when the answer arrives:
 * the same sync as `POST .../sync`. Null when nothing was synced: sync is off on this
 * deployment, the connection is disabled or has no address, or another sync of it held the
 * lease past the wait (that sync brings the plans instead). A feed that fails is a stamp with
 * `last_error`, never a refusal of the request that changed the connection.
 */
export async function syncAtOnce(env: Env, row: CalendarConnectionRow, now: Date): Promise<SyncStamp | null> {
	if (!setting(env, "CALENDAR_SYNC_ENABLED") || !row.enabled || row.icsUrlSealed === null) return null;
	try {
		return await syncNow(env, row, now);
	} catch (err) {
		if (err instanceof ApiError && err.status === 409) return null;
		throw err;
	}
}
