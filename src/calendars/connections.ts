import type { CalendarConnectionRow } from "../db/schema";
import type { Env } from "../env";
import { conflict, notFound } from "../errors";
import { outboundPolicy } from "../outbound/url-guard";
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
