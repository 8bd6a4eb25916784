import { describe, expect, it } from "vitest";
import { checkCron, nextRunAfter } from "../../../src/agent/cron";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** The next `n` runs after `from`, as ISO strings. */
function runs(expr: string, from: string, n: number): string[] {
	const out: string[] = [];
	let t = at(from);
	for (let i = 0; i < n; i++) {
		t = nextRunAfter(expr, t);
		out.push(iso(t));
	}
	return out;
}

describe("checkCron: the 5-field grammar", () => {
	it.each([
		"* * * * *",
		"0 8 * * *",
		"*/15 9-18 * * 1-5",
		"0,30 */2 1,15 jan-mar MON-fri",
		"5 4 * * sun",
		"0 0 * * 7",
		"0 0 29 2 *",
		"10-50/10 0 1 dec *",
		"  0   8 * *   *  ",
	])("accepts %s", (expr) => {
		const check = checkCron(expr);
		expect(check).toEqual({ ok: true, expression: expr.trim().split(/\s+/).join(" ") });
	});

	it.each([
		["0 24 * * *", "hour", "hour must be 0-23, got 24"],
		["60 * * * *", "minute", "minute must be 0-59, got 60"],
		["0 0 0 * *", "day of month", "day of month must be 1-31, got 0"],
		["0 0 32 * *", "day of month", "day of month must be 1-31, got 32"],
		["0 0 * 13 *", "month", "month must be 1-12, got 13"],
		["0 0 * * 8", "day of week", "day of week must be 0-7, got 8"],
		["0 0 * foo *", "month", 'month has an unknown value "foo"'],
		["0 0 * * funday", "day of week", 'day of week has an unknown value "funday"'],
		["0 17-9 * * *", "hour", "hour range 17-9 is reversed"],
		["0 0 * * sat-mon", "day of week", "day of week range sat-mon is reversed"],
		["0 0 L * *", "day of month", 'day of month has an unknown value "L"'],
		["0 0 * * 5L", "day of week", 'day of week has an unknown value "5L"'],
		["0 0 * * 1#2", "day of week", 'day of week does not support "#" (in "1#2")'],
		["0 0 ? * 1", "day of month", 'day of month does not support "?" (in "?")'],
		["*/0 * * * *", "minute", 'minute step must be a whole number from 1, got "0"'],
		["0/15 * * * *", "minute", "minute step needs * or a range (e.g. 0-59/15), got 0/15"],
		["1,,2 * * * *", "minute", 'minute has a malformed item in "1,,2"'],
		["0 0 30 2 *", "day of month", "day of month 30 never occurs in month 2"],
	])("refuses %s naming the %s field", (expr, field, detail) => {
		expect(checkCron(expr)).toEqual({ ok: false, field, detail });
	});

	it.each([
		["0 0 * * * *", "cron needs 5 fields (minute hour day-of-month month day-of-week), got 6"],
		["0 0 * *", "cron needs 5 fields (minute hour day-of-month month day-of-week), got 4"],
		["", "cron needs 5 fields (minute hour day-of-month month day-of-week), got 0"],
		["@daily", "nicknames such as @daily are not supported; write the 5 fields"],
	])("refuses the shape of %j", (expr, detail) => {
		expect(checkCron(expr)).toEqual({ ok: false, field: "cron", detail });
	});

	it("nextRunAfter throws for what checkCron refuses, instead of guessing", () => {
		expect(() => nextRunAfter("0 24 * * *", 0)).toThrow("hour must be 0-23");
	});
});

describe("nextRunAfter: UTC, strictly after", () => {
	it("is strictly after the given time, also when that time is itself a run", () => {
		expect(iso(nextRunAfter("0 8 * * *", at("2030-01-01T08:00:00Z")))).toBe("2030-01-02T08:00:00.000Z");
		expect(iso(nextRunAfter("0 8 * * *", at("2030-01-01T07:59:59.999Z")))).toBe("2030-01-01T08:00:00.000Z");
		expect(iso(nextRunAfter("* * * * *", at("2030-01-01T08:00:30Z")))).toBe("2030-01-01T08:01:00.000Z");
	});

	it("walks steps, ranges and lists", () => {
		expect(runs("*/15 9-10 * * *", "2030-01-01T10:40:00Z", 3)).toEqual([
			"2030-01-01T10:45:00.000Z",
			"2030-01-02T09:00:00.000Z",
			"2030-01-02T09:15:00.000Z",
		]);
		expect(runs("10-50/20 0 1 * *", "2030-01-01T00:00:00Z", 4)).toEqual([
			"2030-01-01T00:10:00.000Z",
			"2030-01-01T00:30:00.000Z",
			"2030-01-01T00:50:00.000Z",
			"2030-02-01T00:10:00.000Z",
		]);
	});

	it("reads month and day names, and 7 as Sunday", () => {
		// 2030-01-01 is a Tuesday.
		expect(runs("0 12 * feb,Dec sun", "2030-01-01T00:00:00Z", 2)).toEqual(["2030-02-03T12:00:00.000Z", "2030-02-10T12:00:00.000Z"]);
		expect(runs("0 12 * * 7", "2030-01-01T00:00:00Z", 1)).toEqual(runs("0 12 * * 0", "2030-01-01T00:00:00Z", 1));
		expect(runs("0 12 * * fri-sun", "2030-01-01T00:00:00Z", 3)).toEqual([
			"2030-01-04T12:00:00.000Z",
			"2030-01-05T12:00:00.000Z",
			"2030-01-06T12:00:00.000Z",
		]);
		expect(runs("0 12 * * 5-7", "2030-01-01T00:00:00Z", 3)).toEqual(runs("0 12 * * fri-sun", "2030-01-01T00:00:00Z", 3));
	});

	it("runs on a day matching day of month OR day of week when both are restricted (Vixie)", () => {
		// The 1st of the month or any Monday: Mon 7th, Mon 14th ... and Fri 1 Feb.
		expect(runs("0 0 1 * mon", "2030-01-01T00:00:00Z", 5)).toEqual([
			"2030-01-07T00:00:00.000Z",
			"2030-01-14T00:00:00.000Z",
			"2030-01-21T00:00:00.000Z",
			"2030-01-28T00:00:00.000Z",
			"2030-02-01T00:00:00.000Z",
		]);
		// 1-31 restricts by Vixie's rule (it does not start with *), so every day matches.
		expect(runs("0 0 1-31 * mon", "2030-01-01T00:00:00Z", 2)).toEqual(["2030-01-02T00:00:00.000Z", "2030-01-03T00:00:00.000Z"]);
	});

	it("needs both when either day field starts with * (Vixie), so */2 with a weekday is AND", () => {
		// Odd days of month that are Mondays: Jan 7, Jan 21, Feb 4 ... (Jan 14, 28 are even).
		expect(runs("0 0 */2 * mon", "2030-01-01T00:00:00Z", 3)).toEqual([
			"2030-01-07T00:00:00.000Z",
			"2030-01-21T00:00:00.000Z",
			"2030-02-11T00:00:00.000Z",
		]);
		expect(runs("0 0 13 * *", "2030-01-01T00:00:00Z", 2)).toEqual(["2030-01-13T00:00:00.000Z", "2030-02-13T00:00:00.000Z"]);
	});

	it("crosses month ends and finds the next leap day", () => {
		expect(runs("0 0 31 * *", "2030-01-31T00:00:00Z", 2)).toEqual(["2030-03-31T00:00:00.000Z", "2030-05-31T00:00:00.000Z"]);
		expect(iso(nextRunAfter("0 0 29 feb *", at("2029-03-01T00:00:00Z")))).toBe("2032-02-29T00:00:00.000Z");
		expect(iso(nextRunAfter("59 23 31 12 *", at("2030-12-31T23:59:00Z")))).toBe("2031-12-31T23:59:00.000Z");
	});
});
