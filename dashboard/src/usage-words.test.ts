import { describe, expect, it } from "vitest";
import { capFigures, capOutlook, capShare, minutesWords } from "./usage-words";

const at = (iso: string) => `at ${iso}`;

describe("usage words", () => {
	it("says minutes as seconds under a minute, tenths under an hour, hours and minutes above", () => {
		expect(minutesWords(0)).toBe("0 min");
		expect(minutesWords(0.01)).toBe("1 s");
		expect(minutesWords(0.5)).toBe("30 s");
		expect(minutesWords(12.46)).toBe("12.5 min");
		expect(minutesWords(30)).toBe("30 min");
		expect(minutesWords(120)).toBe("2 h");
		expect(minutesWords(185.2)).toBe("3 h 5 min");
		expect(minutesWords(599.95)).toBe("10 h");
		expect(minutesWords(59.97)).toBe("60 min");
	});

	it("says how close a cap is, and a cap of 0 as full", () => {
		expect(capShare({ limit: 60, used: 15, resets_at: null })).toBe(25);
		expect(capShare({ limit: 0, used: 0, resets_at: null })).toBe(100);
		expect(capShare({ limit: 2, used: 3, resets_at: null })).toBe(150);
		expect(capFigures("bot_minutes_per_day", { limit: 60, used: 15, resets_at: "x" })).toBe("15 min of 1 h (25%)");
		expect(capFigures("storage_bytes", { limit: 2048, used: 1024, resets_at: null })).toBe("1.0 KB of 2.0 KB (50%)");
	});

	it("says what the next bot meets: room left and the reset, or the refusal and until when", () => {
		expect(capOutlook("bot_minutes_per_day", { limit: 60, used: 15, resets_at: "T" }, at)).toBe("45 min left; resets at T.");
		expect(capOutlook("bot_minutes_per_month", { limit: 60, used: 60, resets_at: "T" }, at)).toBe(
			"Reached: new bots are refused until at T. Bots already in meetings stay until they end.",
		);
		expect(capOutlook("storage_bytes", { limit: 1000, used: 1000, resets_at: null }, at)).toMatch(/^Reached: bots that record are refused/);
		expect(capOutlook("storage_bytes", { limit: 1000, used: 400, resets_at: null }, at)).toBe("600 B left for recordings.");
	});
});
