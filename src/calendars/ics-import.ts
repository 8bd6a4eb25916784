/**
 * An ICS feed, parsed with node-ical, as the events a sync plans: one per UID, each with the
 * occurrence to plan (a single event itself, or a series' next occurrence after EXDATEs and
 * moved or cancelled instances, in the event's own time zone), its title, attendees' display
 * names and the meeting link found in it. Descriptions and attendee addresses stay here.
 */
import ical, { type CalendarComponent, type EventInstance, type ParameterValue, type VEvent } from "node-ical";
import type { ParsedMeetingLink } from "../meetings/meeting-link";
import { findMeetingLink } from "./event-link";

export interface ImportedEvent {
	uid: string;
	cancelled: boolean;
	/** What to plan; null when nothing is upcoming (a past event, an ended series). */
	occurrence: { start: Date; end: Date } | null;
	/** Whether the occurrence starts within the import horizon: later ones only move existing plans. */
	withinHorizon: boolean;
	title: string | null;
	link: ParsedMeetingLink | null;
	/** Display names only: an attendee known only by address is left out. */
	attendees: string[];
}

/** `warning` says what a cap left out, for the connection's `last_error`; null when nothing was. */
export type FeedImport = { ok: true; events: ImportedEvent[]; warning: string | null } | { ok: false; error: string };

export interface ImportWindow {
	now: Date;
	/** Events starting later than this are not imported yet (an existing plan still follows its event). */
	horizonMs: number;
	/** Events that still matter (upcoming or recurring) imported from one feed; default `MAX_FEED_EVENTS`. */
	maxEvents?: number;
}

/**
 * Caps that keep one feed's import bounded whatever it holds (see README, Calendar feeds): the
 * events that still matter, read in time order (a series by its first instance), and the
 * instances one search expands of a series: the search window is sized from the rule before
 * anything is expanded, so no rule makes node-ical generate more. Past single events cost
 * nothing and are not counted.
 */
export const MAX_FEED_EVENTS = 5000;
export const MAX_SERIES_INSTANCES = 500;
/** A series that can repeat more often than this in one day is no meeting series: it is never expanded. */
export const MAX_SERIES_PER_DAY = 100;

/**
 * How far ahead a series is searched for its next occurrence: a few weeks first (expanding a
 * rule is the costly part of a sync), then far enough that a yearly series still has one.
 */
const SERIES_SEARCH_MS = [35, 400].map((days) => days * 24 * 3600_000);
const DEFAULT_LENGTH_MS = 30 * 60_000;
const MAX_TITLE = 500;
const MAX_ATTENDEES = 100;

export function importFeed(text: string, window: ImportWindow): FeedImport {
	if (!/^\s*BEGIN:VCALENDAR/i.test(text)) return { ok: false, error: "The calendar feed is not an iCalendar (ICS) file" };
	if (!/END:VCALENDAR\s*$/i.test(text)) return { ok: false, error: "The calendar feed is incomplete (it does not end with END:VCALENDAR)" };
	let parsed: Record<string, CalendarComponent | undefined>;
	try {
		parsed = ical.sync.parseICS(text) as Record<string, CalendarComponent | undefined>;
	} catch (err) {
		// Cut before the pattern runs: the message may quote the feed.
		const reason = err instanceof Error ? err.message.slice(0, 400).replace(/,?\s*line=.*$/s, "") : "unknown error";
		return { ok: false, error: `The calendar feed could not be parsed: ${reason.slice(0, 120)}` };
	}
	const past: [string, VEvent][] = [];
	const current: [string, VEvent][] = [];
	const seen = new Set<string>();
	for (const [key, component] of Object.entries(parsed)) {
		if (component?.type !== "VEVENT") continue;
		const event = component as VEvent;
		if (!(event.start instanceof Date) || Number.isNaN(event.start.getTime())) continue;
		// All-day entries (holidays, out of office) have no time to join at.
		if (event.datetype === "date" || event.start.dateOnly) continue;
		const uid = typeof event.uid === "string" && event.uid !== "" ? event.uid : `no-uid:${key}`;
		if (seen.has(uid)) continue;
		seen.add(uid);
		const over = !event.rrule && endOf(event.start, event.end).getTime() <= window.now.getTime();
		(over ? past : current).push([uid, event]);
	}
	const maxEvents = window.maxEvents ?? MAX_FEED_EVENTS;
	let warning: string | null = null;
	if (current.length > maxEvents) {
		current.sort(([, a], [, b]) => a.start.getTime() - b.start.getTime());
		current.length = maxEvents;
		warning = `The calendar feed has more than ${maxEvents} upcoming or recurring events; only the first ${maxEvents} are imported`;
	}
	const events = [...past, ...current].map(([uid, event]) => toImported(uid, event, window));
	return { ok: true, events, warning };
}

function toImported(uid: string, event: VEvent, window: ImportWindow): ImportedEvent {
	const cancelled = event.status === "CANCELLED" || event.method === "CANCEL";
	const instance = cancelled ? null : event.rrule ? nextInstance(event, window.now) : singleOccurrence(event, window.now);
	const source = instance?.event ?? event;
	return {
		uid,
		cancelled,
		occurrence: instance ? { start: instance.start, end: instance.end } : null,
		withinHorizon: instance !== null && instance.start.getTime() <= window.now.getTime() + window.horizonMs,
		title: text(source.summary)?.slice(0, MAX_TITLE) || text(event.summary)?.slice(0, MAX_TITLE) || null,
		link: findMeetingLink(source as Record<string, unknown>) ?? findMeetingLink(event as Record<string, unknown>),
		attendees: attendeeNames((source.attendee ?? event.attendee) as VEvent["attendee"]),
	};
}

interface Occurrence {
	start: Date;
	end: Date;
	event: VEvent | Omit<VEvent, "recurrences">;
}

function singleOccurrence(event: VEvent, now: Date): Occurrence | null {
	const end = endOf(event.start, event.end);
	if (end.getTime() <= now.getTime()) return null;
	return { start: new Date(event.start.getTime()), end, event };
}

/** The first instance of a series not yet over, skipping EXDATEs and cancelled instances. */
function nextInstance(event: VEvent, now: Date): Occurrence | null {
	const perDay = event.rrule ? instancesPerDay(event.rrule.options as unknown as Record<string, unknown>) : 1;
	if (perDay > MAX_SERIES_PER_DAY) return null;
	// A regular instance still running started less than one event length ago.
	const length = Math.max(event.end instanceof Date ? event.end.getTime() - event.start.getTime() : 0, DEFAULT_LENGTH_MS);
	const from = new Date(now.getTime() - length);
	// A search of `days` whole days touches at most days + 1 calendar days of the rule (node-ical
	// widens a search ending at midnight to the end of that day, which stays within that).
	const days = Math.floor(MAX_SERIES_INSTANCES / perDay) - 1;
	const last = from.getTime() + days * 24 * 3600_000;
	let searched = 0;
	for (const ahead of SERIES_SEARCH_MS) {
		const to = new Date(Math.min(now.getTime() + ahead, last));
		if (to.getTime() <= searched) break;
		searched = to.getTime();
		let instances: EventInstance[];
		try {
			instances = ical.expandRecurringEvent(event, { from, to });
		} catch {
			return null;
		}
		for (const instance of instances) {
			if (instance.isFullDay || instance.event.status === "CANCELLED") continue;
			const end = endOf(instance.start, instance.end);
			if (end.getTime() > now.getTime()) return { start: new Date(instance.start.getTime()), end, event: instance.event };
		}
	}
	return null;
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

function endOf(start: Date, end: Date | undefined): Date {
	return end instanceof Date && end.getTime() > start.getTime() ? new Date(end.getTime()) : new Date(start.getTime() + DEFAULT_LENGTH_MS);
}

function text(value: ParameterValue | undefined | unknown): string | null {
	if (typeof value === "string") return value.trim();
	if (value && typeof value === "object" && "val" in value && typeof value.val === "string") return value.val.trim();
	return null;
}

function attendeeNames(attendees: VEvent["attendee"]): string[] {
	const list = attendees === undefined ? [] : Array.isArray(attendees) ? attendees : [attendees];
	const names = new Set<string>();
	for (const attendee of list) {
		if (names.size >= MAX_ATTENDEES) break;
		if (typeof attendee !== "object" || attendee === null) continue;
		const { CN, CUTYPE } = attendee.params ?? {};
		if (CUTYPE === "ROOM" || CUTYPE === "RESOURCE") continue;
		const name = typeof CN === "string" ? CN.replace(/^"|"$/g, "").trim().slice(0, 200) : "";
		// Outlook often sets CN to the address itself: that is an address, not a name.
		if (name && !name.includes("@")) names.add(name);
	}
	return [...names];
}
