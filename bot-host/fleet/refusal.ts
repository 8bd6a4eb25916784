/**
 * When a host refuses work, it says so once: a log line when it starts refusing (with why) and
 * one when it takes work again, never a line per poll; and since when, for /health, /metrics.
 * Capacity is asked on every turn of the pull loop, so a change is seen within a poll.
 */
import type { Capacity } from "./capacity.ts";

export class RefusalWatch {
	private since: number | null = null;
	private readonly log: (line: string) => void;
	private readonly now: () => number;

	constructor(log: (line: string) => void, now: () => number = Date.now) {
		this.log = log;
		this.now = now;
	}

	/** Notes `capacity`, logs a change between refusing and taking work, and answers since when it refuses (ISO), or null. */
	observe(capacity: Capacity): string | null {
		if (capacity.refusing !== null && this.since === null) {
			this.since = this.now();
			this.log(`bot host: taking no work: ${capacity.refusing}`);
		} else if (capacity.refusing === null && this.since !== null) {
			const seconds = Math.round((this.now() - this.since) / 1000);
			this.since = null;
			this.log(`bot host: taking work again (${capacity.free} free) after refusing for ${seconds} s`);
		}
		return this.since === null ? null : new Date(this.since).toISOString();
	}
}
