import { describe, expect, it } from "vitest";
import { admissionWords, notCountedWords, rateWords, secondsWords, worstFirst } from "./join-health-words";
import type { PlatformJoinHealth } from "./types";

const platform = (name: string, fields: Partial<PlatformJoinHealth> = {}): PlatformJoinHealth => ({
	platform: name,
	attempts: 0,
	joined: 0,
	failed: 0,
	success_rate: null,
	admission_seconds: { measured: 0, p50: null, p95: null },
	failures: [],
	fleet_failures: [],
	ended_before_admission: [],
	...fields,
});

describe("join health words", () => {
	it("says a rate as a whole percentage, and no data without attempts", () => {
		expect(rateWords(4 / 7)).toBe("57%");
		expect(rateWords(1)).toBe("100%");
		expect(rateWords(0)).toBe("0%");
		expect(rateWords(null)).toBe("no data");
	});

	it("says a time to admission in seconds, then minutes", () => {
		expect(secondsWords(0.4321)).toBe("432 ms");
		expect(secondsWords(4.25)).toBe("4.3 s");
		expect(secondsWords(45.4)).toBe("45 s");
		expect(secondsWords(200)).toBe("3 min 20 s");
		expect(secondsWords(null)).toBe("—");
		expect(admissionWords({ measured: 3, p50: 20, p95: 40 })).toBe("p50 20 s, p95 40 s (3 joins)");
		expect(admissionWords({ measured: 1, p50: 2.5, p95: 2.5 })).toBe("p50 2.5 s, p95 2.5 s (1 join)");
		expect(admissionWords({ measured: 0, p50: null, p95: null })).toBe("no data");
	});

	it("orders platforms worst first, those without attempts last", () => {
		const order = worstFirst([
			platform("google_meet", { attempts: 10, joined: 9, failed: 1, success_rate: 0.9 }),
			platform("zoom"),
			platform("teams", { attempts: 4, joined: 2, failed: 2, success_rate: 0.5 }),
			platform("other", { attempts: 2, joined: 1, failed: 1, success_rate: 0.5 }),
		]).map((p) => p.platform);
		expect(order).toEqual(["teams", "other", "google_meet", "zoom"]);
	});

	it("says what the figures leave out", () => {
		expect(notCountedWords(platform("zoom"))).toBeNull();
		const left = platform("zoom", {
			ended_before_admission: [{ reason: "stopped", count: 2 }],
			fleet_failures: [{ reason: "join_failure", cause: "no_bot_capacity", count: 1 }],
		});
		expect(notCountedWords(left)).toBe("2 ended before admission, 1 fleet failure");
	});
});
