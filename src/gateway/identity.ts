import type { Env } from "../env";
import { ApiError } from "../errors";
import { hashApiKey, parseStoredScopes, type Scope } from "./api-keys";

/** Who is calling, derived only from the API key. */
export interface Identity {
	userId: number;
	email: string;
	scopes: Scope[];
	maxConcurrent: number;
	tokenId: number;
}

interface IdentityRow {
	token_id: number;
	scopes: string;
	expires_at: string | null;
	user_id: number;
	email: string;
	max_concurrent_bots: number;
}

const IDENTITY_SQL = `SELECT t.id AS token_id, t.scopes, t.expires_at, u.id AS user_id, u.email, u.max_concurrent_bots
	FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?`;

/**
 * Resolves a key to its owner. A missing, unknown, revoked or expired key is a 401; a store
 * that cannot answer is a 503 with Retry-After, since the key was not rejected.
 */
export async function resolveIdentity(env: Env, key: string | null | undefined, now: Date): Promise<Identity> {
	if (!key) throw new ApiError(401, "Missing API key");
	const hash = await hashApiKey(key);
	let row: IdentityRow | null;
	try {
		row = await env.DB.prepare(IDENTITY_SQL).bind(hash).first<IdentityRow>();
	} catch (err) {
		console.error("identity store unavailable", err instanceof Error ? err.name : "error");
		throw new ApiError(503, "Identity service unavailable, try again shortly", { "Retry-After": "5" });
	}
	if (!row) throw new ApiError(401, "Invalid API key");
	if (row.expires_at && Date.parse(row.expires_at) <= now.getTime()) throw new ApiError(401, "Invalid API key");
	return {
		userId: row.user_id,
		email: row.email,
		scopes: parseStoredScopes(row.scopes),
		maxConcurrent: row.max_concurrent_bots,
		tokenId: row.token_id,
	};
}
