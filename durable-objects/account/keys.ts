import type { Env } from "../../src/env";
import { parseStoredScopes, type Scope } from "../../src/gateway/api-keys";
import type { Identity } from "../../src/gateway/identity";
import { accountKeyRecords } from "../../src/gateway/key-store";

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
		const { profile, keys } = await accountKeyRecords(this.env, userId);
		this.profile = profile;
		this.loadedAt = Date.now();
		this.grants = new Map(
			keys.map((t) => [
				t.tokenHash,
				{ tokenId: t.id, scopes: parseStoredScopes(t.scopes), expiresAt: t.expiresAt ? Date.parse(t.expiresAt) : null },
			]),
		);
	}
}
