import { describe, expect, it } from "vitest";
import { type TokenBucket, takeToken } from "../../../durable-objects/shared/token-bucket";

const rate = { perSecond: 2, burst: 3 };

/** Takes one token at each time in turn, keeping the bucket; what each take answered. */
function takeAt(times: number[], start?: TokenBucket) {
	let bucket = start;
	return times.map((now) => {
		const taken = takeToken(bucket, now, rate);
		bucket = taken.bucket;
		return taken.admission;
	});
}

describe("the token bucket (AccountObject's requests, LiveFeed's control frames)", () => {
	it("starts full: a burst passes at once, the next is refused with the wait for one token", () => {
		const answers = takeAt([0, 0, 0, 0]);
		expect(answers.map((a) => a.allowed)).toEqual([true, true, true, false]);
		expect(answers[3]?.retryAfterSeconds).toBeCloseTo(0.5);
	});

	it("refills at its rate, never above the burst", () => {
		const { bucket } = takeToken(undefined, 0, rate, 3);
		expect(bucket.tokens).toBe(0);
		expect(takeToken(bucket, 500, rate).admission.allowed).toBe(true);
		// An hour idle refills to the burst, not to 7,200 tokens.
		expect(takeAt([3_600_000, 3_600_000, 3_600_000, 3_600_000], bucket).map((a) => a.allowed)).toEqual([true, true, true, false]);
	});

	it("takes several tokens all or none", () => {
		const first = takeToken(undefined, 0, rate, 2);
		expect(first.admission.allowed).toBe(true);
		const refused = takeToken(first.bucket, 0, rate, 2);
		expect(refused.admission).toEqual({ allowed: false, retryAfterSeconds: 0.5 });
		expect(refused.bucket.tokens).toBe(1);
		expect(takeToken(refused.bucket, 0, rate, 1).admission.allowed).toBe(true);
	});
});
