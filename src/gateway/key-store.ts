/**
 * Raw SQL store (a capped mint counts and inserts in one `INSERT … SELECT` statement, and an
 * account's keys load in one batch). Stored API keys: minting one into D1, and revoking one. The admin routes and a user's own
 * key routes (src/routes/api-keys.ts) both go through here, so a key looks the same however
 * it was made and stops working the same way.
 */
import type { ApiTokenRow } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { accountObject, liveFeed } from "../objects";
import { hashApiKey, mintApiKey, type Scope, serializeScopes } from "./api-keys";

export interface NewKey {
	userId: number;
	/** In the order asked for: the first names the key's prefix (`vxa_<scope>_…`). */
	scopes: readonly [Scope, ...Scope[]];
	name: string | null;
	createdAt: Date;
	expiresAt: string | null;
	/** At most this many unexpired keys for the user, this one included; none when absent (the admin). */
	liveCap?: number;
	/** The key that mints this one (POST /auth/keys): revoking it revokes this one too. Absent for the admin. */
	mintedBy?: number;
}

/** The characters of a key shown in lists (`****abcd`): few enough to say nothing of the rest. */
export const KEY_HINT_LENGTH = 4;

const HINT_MASK = "****";
export const maskedHint = (hint: string | null): string | null => (hint ? `${HINT_MASK}${hint}` : null);

interface StoredRow {
	id: number;
	user_id: number;
	token_hash: string;
	scopes: string;
	name: string | null;
	created_at: string;
	expires_at: string | null;
	key_hint: string | null;
	minted_by: number | null;
}

const toRow = (r: StoredRow): ApiTokenRow => ({
	id: r.id,
	userId: r.user_id,
	tokenHash: r.token_hash,
	scopes: r.scopes,
	name: r.name,
	createdAt: r.created_at,
	expiresAt: r.expires_at,
	keyHint: r.key_hint,
	mintedBy: r.minted_by,
});

/**
 * Mints a key and stores its hash and hint; the clear key is in the answer only. With
 * `liveCap`, the count and the insert are one statement, so two mints at once cannot both
 * take the last place: null then, and nothing is stored.
 */
export async function storeNewKey(env: Env, key: NewKey): Promise<{ row: ApiTokenRow; token: string } | null> {
	const token = mintApiKey(key.scopes[0]);
	const now = key.createdAt.toISOString();
	const values = [
		key.userId,
		await hashApiKey(token),
		serializeScopes(key.scopes),
		key.name,
		now,
		key.expiresAt,
		token.slice(-KEY_HINT_LENGTH),
		key.mintedBy ?? null,
	];
	const columns = "user_id, token_hash, scopes, name, created_at, expires_at, key_hint, minted_by";
	const statement =
		key.liveCap === undefined
			? env.DB.prepare(`INSERT INTO api_tokens (${columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`).bind(...values)
			: env.DB.prepare(
					`INSERT INTO api_tokens (${columns}) SELECT ?, ?, ?, ?, ?, ?, ?, ?
					 WHERE (SELECT count(*) FROM api_tokens WHERE user_id = ? AND (expires_at IS NULL OR expires_at > ?)) < ?
					 RETURNING *`,
				).bind(...values, key.userId, now, key.liveCap);
	const stored = await statement.first<StoredRow>();
	if (!stored) return null;
	await forgetKeys(env, key.userId);
	return { row: toRow(stored), token };
}

/** The account a key hash belongs to, or null when no key has it. */
export async function keyOwner(env: Env, tokenHash: string): Promise<number | null> {
	return env.DB.prepare("SELECT user_id FROM api_tokens WHERE token_hash = ?").bind(tokenHash).first<number>("user_id");
}

/**
 * The account object answers key checks from what it loaded; after any change to an account
 * or its keys it must read D1 again, so a revoked key stops working at once.
 */
export async function forgetKeys(env: Env, userId: number): Promise<void> {
	try {
		await accountObject(env, userId).forgetKeys();
	} catch {
		throw new ApiError(503, "The change is stored but could not reach the account yet; repeat the request", { "Retry-After": "5" });
	}
}

/** A user's keys, newest first: at most `limit`, all without one (expired keys stay listed until revoked). */
export async function listKeys(env: Env, userId: number, limit = -1): Promise<ApiTokenRow[]> {
	const { results } = await env.DB.prepare("SELECT * FROM api_tokens WHERE user_id = ? ORDER BY id DESC LIMIT ?")
		.bind(userId, limit)
		.all<StoredRow>();
	return results.map(toRow);
}

/** One of `ownerId`'s keys, or null when it has no key `tokenId`. */
export async function findKey(env: Env, tokenId: number, ownerId: number): Promise<ApiTokenRow | null> {
	const row = await env.DB.prepare("SELECT * FROM api_tokens WHERE id = ? AND user_id = ?").bind(tokenId, ownerId).first<StoredRow>();
	return row ? toRow(row) : null;
}

/**
 * Deletes the key `tokenId` (only if it is `ownerId`'s, when given), and with it every key it
 * minted, down the chain (`minted_by` cascades, migration 0017); false when there is no such
 * key. They stop working at once: the account reloads its keys, and the user's live
 * connections opened with any of them end (meeting streams, /ws sockets: the revalidation
 * checks every socket's key, so the minted keys' close like the revoked one's). Transcript
 * shares made with them go with them (migration 0011).
 */
export async function revokeKey(env: Env, tokenId: number, ownerId?: number): Promise<boolean> {
	const deleted = await (ownerId === undefined
		? env.DB.prepare("DELETE FROM api_tokens WHERE id = ? RETURNING user_id").bind(tokenId)
		: env.DB.prepare("DELETE FROM api_tokens WHERE id = ? AND user_id = ? RETURNING user_id").bind(tokenId, ownerId)
	).first<number>("user_id");
	if (deleted === null) return false;
	await forgetKeys(env, deleted);
	await liveFeed(env, deleted).revalidate();
	return true;
}

/** What the account object checks keys against: the account's email and cap, and each key's hash, scopes and expiry. */
export interface AccountKeyRecords {
	profile: { email: string; maxConcurrent: number } | undefined;
	keys: { id: number; tokenHash: string; scopes: string; expiresAt: string | null }[];
}

/** The account and its keys, read in one batch. */
export async function accountKeyRecords(env: Env, userId: number): Promise<AccountKeyRecords> {
	const [user, tokens] = await env.DB.batch([
		env.DB.prepare("SELECT email, max_concurrent_bots FROM users WHERE id = ?").bind(userId),
		env.DB.prepare("SELECT id, token_hash, scopes, expires_at FROM api_tokens WHERE user_id = ?").bind(userId),
	]);
	const profile = user?.results[0] as { email: string; max_concurrent_bots: number } | undefined;
	return {
		profile: profile ? { email: profile.email, maxConcurrent: profile.max_concurrent_bots } : undefined,
		keys: ((tokens?.results ?? []) as { id: number; token_hash: string; scopes: string; expires_at: string | null }[]).map((t) => ({
			id: t.id,
			tokenHash: t.token_hash,
			scopes: t.scopes,
			expiresAt: t.expires_at,
		})),
	};
}
