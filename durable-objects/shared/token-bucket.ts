import type { Admission } from "../../src/gateway/rate-limits";

/** A token bucket's state: tokens left, and when they were last counted (epoch ms). */
export interface TokenBucket {
	tokens: number;
	refilledAt: number;
}

export interface BucketRate {
	/** Tokens added per second. */
	perSecond: number;
	/** Most tokens held; a new bucket starts full. */
	burst: number;
}

/**
 * Takes `count` tokens, all or none, from `bucket` (a missing one starts full) after refilling
 * it for the time since it was last counted. Returns the bucket to keep and whether the tokens
 * were granted; when not, how long until they would be.
 */
export function takeToken(
	bucket: TokenBucket | undefined,
	nowMs: number,
	rate: BucketRate,
	count = 1,
): { bucket: TokenBucket; admission: Admission } {
	const held = bucket ?? { tokens: rate.burst, refilledAt: nowMs };
	const tokens = Math.min(rate.burst, held.tokens + (Math.max(0, nowMs - held.refilledAt) / 1000) * rate.perSecond);
	if (tokens >= count) return { bucket: { tokens: tokens - count, refilledAt: nowMs }, admission: { allowed: true, retryAfterSeconds: 0 } };
	return { bucket: { tokens, refilledAt: nowMs }, admission: { allowed: false, retryAfterSeconds: (count - tokens) / rate.perSecond } };
}
