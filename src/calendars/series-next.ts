/**
 * The occurrence of a recurring event (a series) to plan: its first instance not yet over,
 * skipping EXDATEs and cancelled instances, with a moved instance where it moved to, within a
 * search window ahead. node-ical's expansion defines what that is; this finds the same
 * occurrence at a bounded cost, spending one budget of instances shared by the whole feed:
 *
 * - A simple rule (FREQ with INTERVAL, COUNT or UNTIL, and for a weekly rule plain BYDAY days)
 *   is asked for its next date, which rrule-temporal answers arithmetically, one date per
 *   skipped EXDATE or moved instance: a few instances however dense or old the series.
 * - Any other rule is expanded over a window sized from the rule before anything is expanded,
 *   so that one expansion gives at most MAX_SERIES_INSTANCES.
 * - A series that can repeat more than MAX_SERIES_PER_DAY times a day is no meeting series:
 *   it has no occurrence, and costs nothing.
 */
import ical, { type EventInstance, type RRule, type VEvent } from "node-ical";

export const MAX_SERIES_INSTANCES = 500;
export const MAX_SERIES_PER_DAY = 100;

export const DEFAULT_LENGTH_MS = 30 * 60_000;
const DAY_MS = 24 * 3600_000;

/**
 * How far ahead a series is searched for its next occurrence: a few weeks first (expanding a
 * rule is the costly part of a sync), then far enough that a yearly series still has one.
 */
const SERIES_SEARCH_MS = [35, 400].map((days) => days * DAY_MS);

export interface Occurrence {
	start: Date;
	end: Date;
	event: VEvent | Omit<VEvent, "recurrences">;
}

/** Instances the series of one feed may still work out, all together. */
export class InstanceBudget {
	constructor(public left: number) {}

	get spent(): boolean {
		return this.left <= 0;
	}

	spend(instances: number): void {
		this.left -= instances;
	}
}

/** The series' occurrence to plan, null when none is upcoming, or undefined when the budget ran out first. */
export function nextOccurrence(event: VEvent, now: Date, budget: InstanceBudget): Occurrence | null | undefined {
	const rule = event.rrule;
	if (!rule) return null;
	const options = rule.options;
	const perDay = instancesPerDay(options);
	if (perDay > MAX_SERIES_PER_DAY) return null;
	// A regular instance still running started less than one event length ago.
	const length = Math.max(event.end instanceof Date ? event.end.getTime() - event.start.getTime() : 0, DEFAULT_LENGTH_MS);
	const from = new Date(now.getTime() - length);
	// A search of `days` whole days touches at most days + 1 calendar days of the rule (node-ical
	// widens a search ending at midnight to the end of that day, which stays within that).
	const days = Math.floor(MAX_SERIES_INSTANCES / perDay) - 1;
	const last = from.getTime() + days * DAY_MS;
	const windows = SERIES_SEARCH_MS.map((ahead) => new Date(Math.min(now.getTime() + ahead, last)));
	if (isSimple(options)) return nextBySteps(event, rule, now, { from, to: windows.at(-1) as Date }, budget);
	return nextByExpansion(event, now, from, windows, budget);
}

/**
 * The rule's own dates, one at a time from the first that could still be running: each one an
 * EXDATE removes or a moved instance replaces costs one more. Moved instances (overrides) are
 * then looked at where they moved to, as node-ical's expansion does.
 */
function nextBySteps(event: VEvent, rule: RRule, now: Date, window: { from: Date; to: Date }, budget: InstanceBudget) {
	const baseMs = event.end instanceof Date ? event.end.getTime() - event.start.getTime() : 0;
	const runsFor = baseMs > 0 ? baseMs : DEFAULT_LENGTH_MS;
	let picked: Occurrence | null = null;
	let after = new Date(now.getTime() - runsFor);
	for (;;) {
		if (budget.spent) return undefined;
		budget.spend(1);
		const date = rule.after(after, false);
		if (!date || date.getTime() > window.to.getTime()) break;
		after = date;
		if (isExcluded(event, date) || event.recurrences?.[date.toISOString()]) continue;
		picked = { start: date, end: endOf(date, new Date(date.getTime() + baseMs)), event };
		break;
	}
	for (const moved of new Set(Object.values(event.recurrences ?? {}))) {
		if (!(moved.recurrenceid instanceof Date) || !(moved.start instanceof Date)) continue;
		const start = new Date(moved.start.getTime());
		if (start.getTime() < window.from.getTime() || start.getTime() > window.to.getTime()) continue;
		const ms = moved.end instanceof Date ? moved.end.getTime() - start.getTime() : baseMs;
		const end = endOf(start, new Date(start.getTime() + ms));
		if (moved.status === "CANCELLED" || end.getTime() <= now.getTime()) continue;
		if (!picked || start.getTime() < picked.start.getTime()) picked = { start, end, event: moved };
	}
	return picked;
}

/** node-ical's EXDATE test for a timed instance: its instant, or its whole day given as a date. */
function isExcluded(event: VEvent, date: Date): boolean {
	if (!event.exdate) return false;
	const iso = date.toISOString();
	return Object.hasOwn(event.exdate, iso) || Boolean(event.exdate[iso.slice(0, 10)]?.dateOnly);
}

function nextByExpansion(event: VEvent, now: Date, from: Date, windows: Date[], budget: InstanceBudget) {
	let searched = 0;
	for (const to of windows) {
		if (to.getTime() <= searched) break;
		searched = to.getTime();
		if (budget.spent) return undefined;
		let instances: EventInstance[];
		try {
			instances = ical.expandRecurringEvent(event, { from, to });
		} catch {
			return null;
		}
		budget.spend(instances.length);
		for (const instance of instances) {
			if (instance.isFullDay || instance.event.status === "CANCELLED") continue;
			const end = endOf(instance.start, instance.end);
			if (end.getTime() > now.getTime()) return { start: new Date(instance.start.getTime()), end, event: instance.event };
		}
	}
	return null;
}

const WEEKDAY = /^(MO|TU|WE|TH|FR|SA|SU)$/;
const SIMPLE_PARTS = new Set(["freq", "interval", "count", "until", "wkst", "dtstart", "tzid"]);

/** FREQ with INTERVAL, COUNT or UNTIL only; a weekly rule may also name plain days (BYDAY=MO,WE). */
function isSimple(options: Record<string, unknown>): boolean {
	for (const [part, value] of Object.entries(options)) {
		if (value === undefined || value === null || SIMPLE_PARTS.has(part)) continue;
		const days = part === "byDay" || part === "byweekday";
		if (!days || options.freq !== "WEEKLY" || !Array.isArray(value) || !value.every((d) => WEEKDAY.test(String(d)))) return false;
	}
	return true;
}

/**
 * At most how many instances the rule has on one calendar day: its times of day (BYHOUR,
 * BYMINUTE, BYSECOND, or every hour, minute, second for the sub-daily frequencies, fewer with an
 * INTERVAL when no finer list adds times within one step). BYDAY and the like only pick days,
 * so they never add to it. Known before anything is expanded.
 */
function instancesPerDay(rule: Record<string, unknown>): number {
	const freq = String(rule.freq ?? "").toUpperCase();
	const slots = (key: string, every: number, from: string[]) => {
		const list = rule[key];
		if (Array.isArray(list)) return Math.max(list.length, 1);
		if (typeof list === "number") return 1;
		return from.includes(freq) ? every : 1;
	};
	const times =
		slots("byHour", 24, ["HOURLY", "MINUTELY", "SECONDLY"]) *
		slots("byMinute", 60, ["MINUTELY", "SECONDLY"]) *
		slots("bySecond", 60, ["SECONDLY"]);
	const step = SUB_DAILY[freq];
	if (!step || step.finer.some((key) => rule[key] !== undefined)) return times;
	const interval = typeof rule.interval === "number" && rule.interval > 0 ? rule.interval : 1;
	return Math.min(times, Math.floor(86_400 / (step.seconds * interval)) + 1);
}

const SUB_DAILY: Record<string, { seconds: number; finer: string[] }> = {
	HOURLY: { seconds: 3600, finer: ["byMinute", "bySecond"] },
	MINUTELY: { seconds: 60, finer: ["bySecond"] },
	SECONDLY: { seconds: 1, finer: [] },
};

export function endOf(start: Date, end: Date | undefined): Date {
	return end instanceof Date && end.getTime() > start.getTime() ? new Date(end.getTime()) : new Date(start.getTime() + DEFAULT_LENGTH_MS);
}
