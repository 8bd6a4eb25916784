import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import type { Admission } from "../src/gateway/rate-limits";

/**
 * One per user: the coordination points of an account. Calls into a Durable Object run one
 * at a time, so the bucket below is exact however many requests arrive together.
 */
export class AccountObject extends DurableObject<Env> {
	private bucket: { tokens: number; refilledAt: number } | undefined;

	/** Token bucket: `burst` tokens at most, refilled at `rps` per second. */
	takeRequestToken(rps: number, burst: number): Admission {
		const now = Date.now();
		const bucket = this.bucket ?? { tokens: burst, refilledAt: now };
		bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.refilledAt) / 1000) * rps);
		bucket.refilledAt = now;
		this.bucket = bucket;
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return { allowed: true, retryAfterSeconds: 0 };
		}
		return { allowed: false, retryAfterSeconds: (1 - bucket.tokens) / rps };
	}
}
