// Drizzle store: the caller's key and memberships, as the agent reads them.
import { and, eq, inArray } from "drizzle-orm";
import { db } from "../db";
import { readInIdChunks } from "../db/id-chunks";
import { apiTokens } from "../db/schema";
import type { Env } from "../env";
import { parseStoredScopes, type Scope } from "../gateway/api-keys";
import type { Identity } from "../gateway/identity";
import type { WorkloadMode } from "./tools";

/** Whom the agent acts for: the user from the key, the key's scopes (they bound the tools), and the key itself. */
export interface AgentCaller {
	userId: number;
	scopes: Scope[];
	/**
	 * The key the caller used. Work that runs later in its name (a routine) runs only while this
	 * key stays valid, so revoking a leaked key also ends what was set up with it.
	 */
	tokenId: number;
}

export function agentCaller(identity: Identity): AgentCaller {
	return { userId: identity.userId, scopes: identity.scopes, tokenId: identity.tokenId };
}

/**
 * The caller as their key stands now: its current scopes, or null when the key was revoked or
 * has expired (or belongs to someone else).
 */
export async function callerAsKeyStandsNow(env: Env, caller: AgentCaller, now = new Date()): Promise<AgentCaller | null> {
	const key = await db(env)
		.select({ scopes: apiTokens.scopes, expiresAt: apiTokens.expiresAt })
		.from(apiTokens)
		.where(and(eq(apiTokens.id, caller.tokenId), eq(apiTokens.userId, caller.userId)))
		.get();
	if (!key || !unexpired(key, now)) return null;
	return { ...caller, scopes: parseStoredScopes(key.scopes) };
}

/** Of some keys (each with the user it should belong to), the ids of those still valid: in chunks, not one query per key. */
export async function keysStandingNow(env: Env, keys: { userId: number; tokenId: number }[], now = new Date()): Promise<Set<number>> {
	const owners = new Map(keys.map((key) => [key.tokenId, key.userId]));
	const rows = await readInIdChunks([...owners.keys()], (ids) =>
		db(env)
			.select({ id: apiTokens.id, userId: apiTokens.userId, expiresAt: apiTokens.expiresAt })
			.from(apiTokens)
			.where(inArray(apiTokens.id, ids))
			.all(),
	);
	return new Set(rows.filter((row) => owners.get(row.id) === row.userId && unexpired(row, now)).map((row) => row.id));
}

const unexpired = (key: { expiresAt: string | null }, now: Date) => key.expiresAt === null || Date.parse(key.expiresAt) > now.getTime();

/**
 * The mode a turn runs in for this caller: what its trigger earned, but read-only for a key
 * without `bot`. A `tx` key reads (docs/dashboard.md): its turns never write files, commit, or
 * act in meetings, whatever the invocation asks.
 */
export function callerMode(caller: Pick<AgentCaller, "scopes">, earned: WorkloadMode): WorkloadMode {
	return caller.scopes.includes("bot") ? earned : "ro";
}
