import type { Env } from "../../src/env";
import { parseStoredScopes, type Scope } from "../../src/gateway/api-keys";
import type { Identity } from "../../src/gateway/identity";

interface Grant {
	tokenId: number;
	scopes: Scope[];
	expiresAt: number | null;
}

export type KeyCheck = { ok: true; identity: Identity } | { ok: false; reason: "invalid" };

/**
 * The account's keys, loaded from D1 on first use and dropped whenever an admin changes the
 * account or its keys (`forget`), so the next request reads D1 again: a revoked key stops
 * working at once. Once loaded, a request costs no D1 query at all.
 */
/** Reloaded at least this often, which bounds staleness should an admin's `forget` not arrive. */
const RELOAD_AFTER_MS = 60_000;

export class AccountKeys {
	private grants: Map<string, Grant> | undefined;
	private profile: { email: string; maxConcurrent: number } | undefined;
	private loadedAt = 0;

	constructor(private readonly env: Env) {}

	forget(): void {
		this.grants = undefined;
		this.profile = undefined;
	}

	async check(userId: number, tokenHash: string, nowMs: number): Promise<KeyCheck> {
		await this.fresh(userId, nowMs);
		return this.judge(userId, this.grants?.get(tokenHash), nowMs);
	}

	/** The same check for the key with id `tokenId` (a `/ws` ticket names its key by id). */
	async checkToken(userId: number, tokenId: number, nowMs: number): Promise<KeyCheck> {
		await this.fresh(userId, nowMs);
		const grant = [...(this.grants?.values() ?? [])].find((g) => g.tokenId === tokenId);
		return this.judge(userId, grant, nowMs);
	}

	private async fresh(userId: number, nowMs: number): Promise<void> {
		if (!this.grants || !this.profile || nowMs - this.loadedAt > RELOAD_AFTER_MS) await this.load(userId);
	}

	private judge(userId: number, grant: Grant | undefined, nowMs: number): KeyCheck {
		if (!grant || !this.profile || (grant.expiresAt !== null && grant.expiresAt <= nowMs)) return { ok: false, reason: "invalid" };
		return {
			ok: true,
			identity: {
				userId,
				email: this.profile.email,
				scopes: grant.scopes,
				maxConcurrent: this.profile.maxConcurrent,
				tokenId: grant.tokenId,
				keyExpiresAt: grant.expiresAt,
			},
		};
	}

	private async load(userId: number): Promise<void> {
		const [user, tokens] = await this.env.DB.batch([
			this.env.DB.prepare("SELECT email, max_concurrent_bots FROM users WHERE id = ?").bind(userId),
			this.env.DB.prepare("SELECT id, token_hash, scopes, expires_at FROM api_tokens WHERE user_id = ?").bind(userId),
		]);
		const profile = user?.results[0] as { email: string; max_concurrent_bots: number } | undefined;
		this.profile = profile ? { email: profile.email, maxConcurrent: profile.max_concurrent_bots } : undefined;
		this.loadedAt = Date.now();
		this.grants = new Map(
			((tokens?.results ?? []) as { id: number; token_hash: string; scopes: string; expires_at: string | null }[]).map((t) => [
				t.token_hash,
				{ tokenId: t.id, scopes: parseStoredScopes(t.scopes), expiresAt: t.expires_at ? Date.parse(t.expires_at) : null },
			]),
		);
	}
}
