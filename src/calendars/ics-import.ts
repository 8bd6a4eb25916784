/**
 * An ICS feed, parsed with node-ical, as the events a sync plans: one per UID, each with the
 * occurrence to plan (a single event itself, or a series' next occurrence after EXDATEs and
 * moved or cancelled instances, in the event's own time zone), its title, attendees' display
 * names and the meeting link found in it. Descriptions and attendee addresses stay here.
 */
import ical, { type CalendarComponent, type EventInstance, type ParameterValue, type VEvent } from "node-ical";
import { type ParsedMeetingLink, parseMeetingLink } from "../meetings/meeting-link";

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

export type FeedImport = { ok: true; events: ImportedEvent[] } | { ok: false; error: string };

export interface ImportWindow {
	now: Date;
	/** Events starting later than this are not imported yet (an existing plan still follows its event). */
	horizonMs: number;
}

/**
 * How far ahead a series is searched for its next occurrence: a few weeks first (expanding a
 * rule is the costly part of a sync), then far enough that a yearly series still has one.
 */
const SERIES_SEARCH_MS = [35, 400].map((days) => days * 24 * 3600_000);
/** Instances that started up to this long ago may still be running. */
const ONGOING_MS = 24 * 3600_000;
const DEFAULT_LENGTH_MS = 30 * 60_000;
const MAX_TITLE = 500;

export function importFeed(text: string, window: ImportWindow): FeedImport {
	if (!/^\s*BEGIN:VCALENDAR/i.test(text)) return { ok: false, error: "The calendar feed is not an iCalendar (ICS) file" };
	if (!/END:VCALENDAR\s*$/i.test(text)) return { ok: false, error: "The calendar feed is incomplete (it does not end with END:VCALENDAR)" };
	let parsed: Record<string, CalendarComponent | undefined>;
	try {
		parsed = ical.sync.parseICS(text) as Record<string, CalendarComponent | undefined>;
	} catch (err) {
		const reason = err instanceof Error ? err.message.replace(/,?\s*line=.*$/s, "") : "unknown error";
		return { ok: false, error: `The calendar feed could not be parsed: ${reason.slice(0, 120)}` };
	}
	const events: ImportedEvent[] = [];
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
		events.push(toImported(uid, event, window));
	}
	return { ok: true, events };
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
	for (const ahead of SERIES_SEARCH_MS) {
		let instances: EventInstance[];
		try {
			instances = ical.expandRecurringEvent(event, {
				from: new Date(now.getTime() - ONGOING_MS),
				to: new Date(now.getTime() + ahead),
				expandOngoing: true,
			});
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

function endOf(start: Date, end: Date | undefined): Date {
	return end instanceof Date && end.getTime() > start.getTime() ? new Date(end.getTime()) : new Date(start.getTime() + DEFAULT_LENGTH_MS);
}

function text(value: ParameterValue | undefined | unknown): string | null {
	if (typeof value === "string") return value.trim();
	if (value && typeof value === "object" && "val" in value && typeof value.val === "string") return value.val.trim();
	return null;
}

/** Where calendars put the join link, best first: URL, conference fields, location, description. */
const LINK_FIELDS = [
	"url",
	"conference",
	"GOOGLE-CONFERENCE",
	"MICROSOFT-SKYPETEAMSMEETINGURL",
	"MICROSOFT-ONLINEMEETINGCONFLINK",
	"MICROSOFT-ONLINEMEETINGEXTERNALLINK",
	"location",
	"description",
];
const SKIPPED_FIELDS = new Set(["attendee", "organizer", "uid", "type", "summary", "recurrences", "rrule", "exdate"]);
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`\\]+/gi;

/** The first Meet, Zoom or Teams link in the event's fields; null when there is none. */
export function findMeetingLink(event: Record<string, unknown>): ParsedMeetingLink | null {
	const rest = Object.keys(event).filter((k) => !LINK_FIELDS.includes(k) && !SKIPPED_FIELDS.has(k));
	for (const field of [...LINK_FIELDS, ...rest]) {
		const value = text(event[field]);
		if (!value) continue;
		for (const match of value.matchAll(URL_IN_TEXT)) {
			const parsed = parseMeetingLink(match[0].replace(/[).,;:!?\]]+$/, ""));
			if (parsed) return parsed;
		}
	}
	return null;
}

function attendeeNames(attendees: VEvent["attendee"]): string[] {
	const list = attendees === undefined ? [] : Array.isArray(attendees) ? attendees : [attendees];
	const names: string[] = [];
	for (const attendee of list) {
		if (typeof attendee !== "object" || attendee === null) continue;
		const { CN, CUTYPE } = attendee.params ?? {};
		if (CUTYPE === "ROOM" || CUTYPE === "RESOURCE") continue;
		const name = typeof CN === "string" ? CN.replace(/^"|"$/g, "").trim() : "";
		// Outlook often sets CN to the address itself: that is an address, not a name.
		if (name && !name.includes("@") && !names.includes(name)) names.push(name.slice(0, 200));
	}
	return names;
}
