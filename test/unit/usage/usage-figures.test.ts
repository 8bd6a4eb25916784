import { describe, expect, it } from "vitest";
import {
	botSpans,
	daysBetween,
	minutes,
	monthStart,
	nextDayStart,
	nextMonthStart,
	secondsPerDay,
	secondsWithin,
} from "../../../src/usage/usage-figures";

const ms = (iso: string) => Date.parse(iso);

describe("a bot's spans", () => {
	it("waits from its join to admission, and is in the meeting from admission to the end", () => {
		const spans = botSpans(
			{ joining_at: "2025-03-10T10:00:00Z", start_time: "2025-03-10T10:02:00Z", end_time: "2025-03-10T10:32:00Z", live: false },
			0,
		);
		expect(spans.waiting).toEqual({ from: ms("2025-03-10T10:00:00Z"), to: ms("2025-03-10T10:02:00Z") });
		expect(spans.inMeeting).toEqual({ from: ms("2025-03-10T10:02:00Z"), to: ms("2025-03-10T10:32:00Z") });
	});

	it("waits to the end when never let in, and has no time in the meeting", () => {
		const spans = botSpans({ joining_at: "2025-03-10T10:00:00Z", start_time: null, end_time: "2025-03-10T10:15:00Z", live: false }, 0);
		expect(secondsWithin(spans.waiting, 0, Number.MAX_SAFE_INTEGER)).toBe(900);
		expect(spans.inMeeting).toBeNull();
	});

	it("counts a live bot up to now, and an ended record without an end time not at all", () => {
		const now = ms("2025-03-10T11:00:00Z");
		const live = botSpans({ joining_at: null, start_time: "2025-03-10T10:30:00Z", end_time: null, live: true }, now);
		expect(secondsWithin(live.inMeeting, 0, Number.MAX_SAFE_INTEGER)).toBe(1800);
		expect(live.waiting).toBeNull();
		const unended = botSpans({ joining_at: "2025-03-10T10:00:00Z", start_time: "2025-03-10T10:01:00Z", end_time: null, live: false }, now);
		expect(unended.inMeeting).toBeNull();
		expect(secondsWithin(unended.waiting, 0, Number.MAX_SAFE_INTEGER)).toBe(60);
	});

	it("has nothing for a record that never began a join, or whose times do not parse", () => {
		expect(botSpans({ joining_at: null, start_time: null, end_time: null, live: true }, 10)).toEqual({ waiting: null, inMeeting: null });
		expect(botSpans({ joining_at: "garbage", start_time: null, end_time: "2025-03-10T10:00:00Z", live: false }, 0)).toEqual({
			waiting: null,
			inMeeting: null,
		});
	});
});

describe("days", () => {
	it("splits a span at each midnight UTC", () => {
		const span = { from: ms("2025-03-10T23:30:00Z"), to: ms("2025-03-12T00:15:00Z") };
		const days = daysBetween("2025-03-09", "2025-03-12");
		expect(days).toEqual(["2025-03-09", "2025-03-10", "2025-03-11", "2025-03-12"]);
		const all = secondsPerDay(span, ms("2025-03-09T00:00:00Z"), ms("2025-03-13T00:00:00Z"));
		expect(Object.fromEntries(all)).toEqual({ "2025-03-10": 1800, "2025-03-11": 86_400, "2025-03-12": 900 });
		// Cut to the range: the days outside it are not visited.
		const cut = secondsPerDay(span, ms("2025-03-11T00:00:00Z"), ms("2025-03-12T00:00:00Z"));
		expect(Object.fromEntries(cut)).toEqual({ "2025-03-11": 86_400 });
	});

	it("crosses month and leap-year ends", () => {
		expect(daysBetween("2024-02-28", "2024-03-01")).toEqual(["2024-02-28", "2024-02-29", "2024-03-01"]);
		expect(new Date(nextDayStart(ms("2025-12-31T23:59:59Z"))).toISOString()).toBe("2026-01-01T00:00:00.000Z");
		expect(new Date(monthStart(ms("2025-12-31T23:59:59Z"))).toISOString()).toBe("2025-12-01T00:00:00.000Z");
		expect(new Date(nextMonthStart(ms("2025-12-31T23:59:59Z"))).toISOString()).toBe("2026-01-01T00:00:00.000Z");
	});

	it("gives minutes to the hundredth", () => {
		expect(minutes(90)).toBe(1.5);
		expect(minutes(1)).toBe(0.02);
		expect(minutes(0.2)).toBe(0);
	});
});
