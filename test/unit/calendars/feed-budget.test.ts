import ical, { type CalendarComponent, type VEvent } from "node-ical";
import { afterEach, describe, expect, it, vi } from "vitest";
import { importFeed } from "../../../src/calendars/ics-import";
import { watchExpansions } from "../../worker/calendars/expansions";

/**
 * One import's budget (src/calendars/ics-import.ts, series-next.ts): simple rules are asked for
 * their next date instead of being expanded, and give what node-ical's expansion gives; all
 * series of a feed share one budget of instances; the import stops past its time budget. What
 * a budget leaves out is named (`unread`) and said (`warning`).
 */

const feed = (...events: string[]) => ["BEGIN:VCALENDAR", "VERSION:2.0", ...events, "END:VCALENDAR", ""].join("\r\n");
const event = (lines: string[]) => ["BEGIN:VEVENT", "DTSTAMP:20300101T000000Z", ...lines, "END:VEVENT"].join("\r\n");
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const window = (now: Date, more: Partial<Parameters<typeof importFeed>[1]> = {}) => ({ now, horizonMs: 90 * DAY, ...more });
const ics = (ms: number) =>
	new Date(ms)
		.toISOString()
		.replace(/[-:]/g, "")
		.replace(/\.\d{3}/, "");

/** node-ical's own answer: the first instance of its expansion ahead that is not cancelled and not over. */
function expandedNext(text: string, uid: string, now: Date): string | null {
	const parsed = ical.sync.parseICS(text) as Record<string, CalendarComponent>;
	const series = Object.values(parsed).find((c) => c.type === "VEVENT" && (c as VEvent).uid === uid) as VEvent;
	const length = Math.max(series.end instanceof Date ? series.end.getTime() - series.start.getTime() : 0, 30 * MINUTE);
	const from = new Date(now.getTime() - length);
	// A few weeks first (the dense series have one there), then a year.
	for (const ahead of [40 * DAY, 400 * DAY]) {
		for (const instance of ical.expandRecurringEvent(series, { from, to: new Date(now.getTime() + ahead) })) {
			if (instance.event.status === "CANCELLED") continue;
			const end = instance.end > instance.start ? instance.end : new Date(instance.start.getTime() + 30 * MINUTE);
			if (end > now) return `${instance.start.toISOString()} ${instance.event.summary}`;
		}
	}
	return null;
}

/** Simple rules, with EXDATEs, moved and cancelled instances, COUNT and UNTIL, across DST changes. */
const SERIES: Record<string, string[]> = {
	quarter: [event(["UID:quarter", "DTSTART:20250105T100000Z", "DURATION:PT10M", "RRULE:FREQ=MINUTELY;INTERVAL=15", "SUMMARY:Quarter"])],
	"two-hourly": [
		event([
			"UID:two-hourly",
			"DTSTART;TZID=Europe/Berlin:20291230T083000",
			"DURATION:PT45M",
			"RRULE:FREQ=HOURLY;INTERVAL=2;COUNT=900",
			"SUMMARY:Two-hourly",
		]),
	],
	daily: [
		event([
			"UID:daily",
			"DTSTART;TZID=Europe/Berlin:20300101T093000",
			"DTEND;TZID=Europe/Berlin:20300101T100000",
			"RRULE:FREQ=DAILY",
			"EXDATE;TZID=Europe/Berlin:20300331T093000",
			"SUMMARY:Daily",
		]),
		event([
			"UID:daily",
			"RECURRENCE-ID;TZID=Europe/Berlin:20301028T093000",
			"DTSTART;TZID=Europe/Berlin:20301028T150000",
			"DTEND;TZID=Europe/Berlin:20301028T153000",
			"SUMMARY:Daily (moved)",
		]),
		event([
			"UID:daily",
			"RECURRENCE-ID;TZID=Europe/Berlin:20301104T093000",
			"DTSTART;TZID=Europe/Berlin:20301104T093000",
			"STATUS:CANCELLED",
			"SUMMARY:Daily (cancelled)",
		]),
	],
	mwf: [
		event([
			"UID:mwf",
			"DTSTART;TZID=America/New_York:20300107T090000",
			"DURATION:PT30M",
			"RRULE:FREQ=WEEKLY;BYDAY=MO,WE,FR;UNTIL=20301231T235959Z",
			"SUMMARY:MWF",
		]),
	],
	fortnightly: [
		event([
			"UID:fortnightly",
			"DTSTART;TZID=America/New_York:20300104T160000",
			"DURATION:PT1H",
			"RRULE:FREQ=WEEKLY;INTERVAL=2",
			"SUMMARY:Fortnightly",
		]),
		// Moved from January to November: found where it moved to.
		event([
			"UID:fortnightly",
			"RECURRENCE-ID;TZID=America/New_York:20300118T160000",
			"DTSTART;TZID=America/New_York:20301105T120000",
			"DURATION:PT1H",
			"SUMMARY:Fortnightly (moved)",
		]),
	],
	"ten-days": [
		event(["UID:ten-days", "DTSTART;TZID=America/New_York:20300301T080000", "DURATION:PT15M", "RRULE:FREQ=DAILY;COUNT=10", "SUMMARY:Ten"]),
	],
	monthly: [event(["UID:monthly", "DTSTART;TZID=Asia/Tokyo:20300115T100000", "DURATION:PT1H", "RRULE:FREQ=MONTHLY", "SUMMARY:Monthly"])],
	"no-length": [event(["UID:no-length", "DTSTART:20300101T120000Z", "RRULE:FREQ=DAILY;INTERVAL=3", "SUMMARY:No length"])],
};

/** Around the DST changes of 2030 (Europe 31 March and 27 October, the US 10 March and 3 November), and in instances. */
const NOWS = [
	"2030-01-10T10:00:00Z",
	"2030-03-05T07:50:00Z",
	"2030-03-10T06:50:00Z",
	"2030-03-10T13:05:00Z",
	"2030-03-31T07:45:00Z",
	"2030-10-27T08:40:00Z",
	"2030-10-28T08:35:00Z",
	"2030-11-03T14:05:00Z",
	"2030-11-04T08:35:00Z",
];

describe("simple rules", () => {
	afterEach(() => vi.restoreAllMocks());

	it.each(Object.keys(SERIES))("%s: the occurrence node-ical's expansion gives, found without expanding the rule", (uid) => {
		const text = feed(...(SERIES[uid] ?? []));
		for (const iso of NOWS) {
			const now = new Date(iso);
			const expanded = watchExpansions();
			const result = importFeed(text, window(now));
			vi.restoreAllMocks();
			if (!result.ok) throw new Error(result.error);
			const imported = result.events.find((e) => e.uid === uid);
			const found = imported?.occurrence ? `${imported.occurrence.start.toISOString()} ${imported.title}` : null;
			expect(expanded.uids, iso).toEqual([]);
			expect(found, iso).toBe(expandedNext(text, uid, now));
		}
	});

	it("imports the review's feed of 2,000 series every 15 minutes for a few instances each, none expanded", () => {
		const now = new Date("2030-01-10T10:07:00Z");
		const firstStart = now.getTime() - 3 * DAY;
		// Staggered by a minute: series i starts at minute i % 15 of the quarter hour.
		const series = Array.from({ length: 2000 }, (_, i) =>
			event([
				`UID:q-${i}`,
				`DTSTART:${ics(firstStart + (i % 15) * MINUTE)}`,
				"DURATION:PT10M",
				"RRULE:FREQ=MINUTELY;INTERVAL=15",
				`SUMMARY:Q ${i}`,
			]),
		);
		const expanded = watchExpansions();
		const imported = importFeed(feed(...series), window(now, { maxInstances: 2 * 2000 }));
		expect(expanded.uids).toEqual([]);
		if (!imported.ok) throw new Error(imported.error);
		expect(imported.warning).toBeNull();
		expect(imported.unread.size).toBe(0);
		const starts = new Map(imported.events.map((e) => [e.uid, e.occurrence?.start.getTime()]));
		for (let i = 0; i < 2000; i++) {
			// The first start of the series still running or ahead (10 minutes long).
			const offset = (i % 15) * MINUTE;
			const step = 15 * MINUTE;
			const next = firstStart + offset + Math.ceil((now.getTime() - 10 * MINUTE - firstStart - offset + 1) / step) * step;
			expect(starts.get(`q-${i}`), `q-${i}`).toBe(next);
		}
	});
});

describe("one budget per feed", () => {
	it("works out series earliest first until the feed's instances are spent, and names the rest", () => {
		const now = new Date("2030-01-10T10:00:00Z");
		// Twice a day (a rule with BYHOUR, so expanded): 72 instances in the first five weeks.
		const series = Array.from({ length: 20 }, (_, i) =>
			event([
				`UID:twice-${i}`,
				`DTSTART:${ics(now.getTime() - (20 - i) * DAY)}`,
				"DURATION:PT30M",
				"RRULE:FREQ=DAILY;BYHOUR=9,15",
				`SUMMARY:T ${i}`,
			]),
		);
		const singles = [1, 2].map((d) => event([`UID:single-${d}`, `DTSTART:${ics(now.getTime() + d * DAY)}`, `SUMMARY:S ${d}`]));
		const result = importFeed(feed(...series, ...singles), window(now, { maxInstances: 300 }));
		if (!result.ok) throw new Error(result.error);
		// 4 × 72 = 288 leave 12: the fifth is still expanded, the sixth finds the budget spent.
		const withOccurrence = result.events.filter((e) => e.occurrence).map((e) => e.uid);
		expect(withOccurrence).toEqual(["twice-0", "twice-1", "twice-2", "twice-3", "twice-4", "single-1", "single-2"]);
		expect([...result.unread].sort()).toEqual(Array.from({ length: 15 }, (_, i) => `twice-${i + 5}`).sort());
		expect(result.warning).toBe(
			"The calendar feed's recurring events need more than 300 instances worked out: 7 events were imported, 15 series are left as they were",
		);
	});

	it("stops past its time, between parts of the parse or between events, keeping what it finished", () => {
		const now = new Date("2030-01-10T10:00:00Z");
		// A clock that moves a second each time it is read.
		const clock = () => {
			let t = 0;
			return () => (t += 1000);
		};
		const singles = (n: number) =>
			Array.from({ length: n }, (_, i) => event([`UID:e-${i}`, `DTSTART:${ics(now.getTime() + (i + 1) * 60 * MINUTE)}`, "SUMMARY:E"]));
		// A series written first, its moved next instance written last, 449 events between: the
		// parse takes them in parts, each UID whole in one.
		const text = feed(
			event(["UID:weekly", "DTSTART:20300103T090000Z", "DURATION:PT1H", "RRULE:FREQ=WEEKLY", "SUMMARY:Weekly"]),
			...singles(449),
			event(["UID:weekly", "RECURRENCE-ID:20300117T090000Z", "DTSTART:20300116T140000Z", "DURATION:PT1H", "SUMMARY:Weekly (moved)"]),
		);

		// Read at the start, before the second and third part of the parse (200 events each), then every 50 events.
		const inEvents = importFeed(text, window(now, { maxMs: 2500, clock: clock() }));
		if (!inEvents.ok) throw new Error(inEvents.error);
		const found = inEvents.events.filter((e) => e.occurrence);
		expect(found).toHaveLength(50);
		expect(found.find((e) => e.uid === "weekly")).toMatchObject({
			title: "Weekly (moved)",
			occurrence: { start: new Date("2030-01-16T14:00:00Z") },
		});
		expect(inEvents.unread.size).toBe(400);
		expect(inEvents.warning).toBe("The calendar feed takes more than 2.5 s to import: 50 events were imported, 400 are left as they were");

		const inParse = importFeed(text, window(now, { maxMs: 1500, clock: clock() }));
		if (!inParse.ok) throw new Error(inParse.error);
		expect(inParse.events).toEqual([]);
		expect(inParse.unread.size).toBe(450);
		expect(inParse.warning).toBe("The calendar feed takes more than 1.5 s to import: 0 events were imported, 450 are left as they were");
	});
});
