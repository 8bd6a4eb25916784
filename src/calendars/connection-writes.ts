/**
 * Raw SQL store (the count and the insert are one `INSERT … SELECT … WHERE` statement, so
 * concurrent requests cannot pass the limits together; a sync's stamp is one statement that the
 * hostile-feed tests find by its text to kill a sync mid-way): creating a calendar connection
 * within the account's limits (calendar-store.ts's MAX_ACTIVE_CONNECTIONS and MAX_CONNECTIONS),
 * and a finished sync's stamp.
 */
import type { Env } from "../env";
import { MAX_ACTIVE_CONNECTIONS, MAX_CONNECTIONS, type SyncCounts } from "./calendar-store";

export interface NewConnection {
	id: string;
	userId: number;
	name: string;
	icsUrlSealed: string | null;
	icsUrlMasked: string | null;
	autoJoin: boolean;
	botName: string;
	nextSyncAt: string;
	now: string;
	/** A signed-in calendar: its provider, account and sealed tokens (ICS: kind "ics", the rest null). */
	kind?: "ics" | "google" | "microsoft";
	account?: string | null;
	oauthTokensSealed?: string | null;
}

/** Inserts an enabled connection unless the account is at either limit; false then, and nothing is stored. */
export async function insertConnectionWithinLimits(env: Env, c: NewConnection): Promise<boolean> {
	const inserted = await env.DB.prepare(
		`INSERT INTO calendar_connections (id, user_id, name, ics_url_sealed, ics_url_masked, auto_join, bot_name, enabled, next_sync_at, created_at, updated_at, kind, account, oauth_tokens_sealed)
		 SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?
		 WHERE (SELECT count(*) FROM calendar_connections WHERE user_id = ? AND enabled = 1) < ?
		   AND (SELECT count(*) FROM calendar_connections WHERE user_id = ?) < ?
		 RETURNING id`,
	)
		.bind(
			c.id,
			c.userId,
			c.name,
			c.icsUrlSealed,
			c.icsUrlMasked,
			c.autoJoin ? 1 : 0,
			c.botName,
			c.nextSyncAt,
			c.now,
			c.now,
			c.kind ?? "ics",
			c.account ?? null,
			c.oauthTokensSealed ?? null,
			c.userId,
			MAX_ACTIVE_CONNECTIONS,
			c.userId,
			MAX_CONNECTIONS,
		)
		.first();
	return inserted !== null;
}

/** All the account's connections, disabled ones included. */
export async function connectionCount(env: Env, userId: number): Promise<number> {
	return (await env.DB.prepare("SELECT count(*) AS n FROM calendar_connections WHERE user_id = ?").bind(userId).first<number>("n")) ?? 0;
}

/** Stores a finished sync's stamp and next time, and gives its lease back. */
export async function recordSync(
	env: Env,
	connectionId: string,
	stamp: { lastSyncAt: string; lastError: string | null; lastCounts: SyncCounts; nextSyncAt: string },
): Promise<void> {
	await env.DB.prepare(
		"UPDATE calendar_connections SET last_sync_at = ?, last_error = ?, last_counts = ?, next_sync_at = ?, sync_lease_until = NULL WHERE id = ?",
	)
		.bind(stamp.lastSyncAt, stamp.lastError, JSON.stringify(stamp.lastCounts), stamp.nextSyncAt, connectionId)
		.run();
}
