import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import type { Admission } from "../../src/gateway/rate-limits";
import { IP_GUARD_STORAGE } from "./storage";

/** Refused requests within one window that mark an IP as a repeat offender. */
export const REFUSALS_BEFORE_BAN = 10;
const WINDOW_MS = 60_000;

/** The RPC surface: what the gateway calls on an IP's stub. */
export const IP_GUARD_RPC = ["admit"] as const;

/**
 * One per client IP, consulted before any key is checked: a fixed one-minute window; an IP
 * that keeps sending after it was refused is banned for `banSeconds`. The ban is stored so
 * it survives the object being evicted.
 */
export class IpGuard extends DurableObject<Env> {
	private window = { startedAt: 0, count: 0, refused: 0 };

	async admit(requestsPerMinute: number, banSeconds: number): Promise<Admission> {
		const now = Date.now();
		const bannedUntil = (await this.ctx.storage.get<number>(IP_GUARD_STORAGE.keys.bannedUntil)) ?? 0;
		if (bannedUntil > now) return { allowed: false, retryAfterSeconds: (bannedUntil - now) / 1000 };

		if (now - this.window.startedAt >= WINDOW_MS) this.window = { startedAt: now, count: 0, refused: 0 };
		this.window.count += 1;
		if (this.window.count <= requestsPerMinute) return { allowed: true, retryAfterSeconds: 0 };

		this.window.refused += 1;
		if (this.window.refused >= REFUSALS_BEFORE_BAN) {
			await this.ctx.storage.put(IP_GUARD_STORAGE.keys.bannedUntil, now + banSeconds * 1000);
			return { allowed: false, retryAfterSeconds: banSeconds };
		}
		return { allowed: false, retryAfterSeconds: (this.window.startedAt + WINDOW_MS - now) / 1000 };
	}
}
