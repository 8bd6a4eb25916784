import { and, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/d1";
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
	const key = await drizzle(env.DB)
		.select({ scopes: apiTokens.scopes, expiresAt: apiTokens.expiresAt })
		.from(apiTokens)
		.where(and(eq(apiTokens.id, caller.tokenId), eq(apiTokens.userId, caller.userId)))
		.get();
	if (!key || (key.expiresAt !== null && Date.parse(key.expiresAt) <= now.getTime())) return null;
	return { ...caller, scopes: parseStoredScopes(key.scopes) };
}

/**
 * The mode a turn runs in for this caller: what its trigger earned, but read-only for a key
 * without `bot`. A `tx` key reads (docs/dashboard.md): its turns never write files, commit, or
 * act in meetings, whatever the invocation asks.
 */
export function callerMode(caller: Pick<AgentCaller, "scopes">, earned: WorkloadMode): WorkloadMode {
	return caller.scopes.includes("bot") ? earned : "ro";
}
