/**
 * An ICS feed, parsed with node-ical, as the events a sync plans: one per UID, each with the
 * occurrence to plan (a single event itself, or a series' next occurrence after EXDATEs and
 * moved or cancelled instances, in the event's own time zone, see series-next.ts), its title,
 * attendees' display names and the meeting link found in it. Descriptions and attendee
 * addresses stay here.
 */
import ical, { type CalendarComponent, type ParameterValue, type VEvent } from "node-ical";
import type { ParsedMeetingLink } from "../meetings/meeting-link";
import { DEPLOYMENT_DEFAULTS } from "../settings/deployment-defaults";
import { findMeetingLink } from "./event-link";
import { feedParts } from "./ics-blocks";
import { endOf, InstanceBudget, nextOccurrence, type Occurrence } from "./series-next";

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
	/** The organiser's address, lower case (for the "only meetings I organise" rule); null when unknown. */
	organizer?: string | null;
	/** Said by the provider itself (Google organizer.self, Graph isOrganizer); ICS leaves it to the organiser's address. */
	organizedByMe?: boolean;
	/** People invited, the organiser included, rooms and resources not; at least 1. */
	invitees?: number;
}

/**
 * `warning` says what a cap or budget left out, for the connection's `last_error`; null when
 * nothing was. `unread` holds the UIDs of events the feed has that a budget stopped the import
 * before: they are left as they were, neither planned anew nor taken as gone from the feed.
 */
export type FeedImport = { ok: true; events: ImportedEvent[]; warning: string | null; unread: Set<string> } | { ok: false; error: string };

export interface ImportWindow {
	now: Date;
	/** Events starting later than this are not imported yet (an existing plan still follows its event). */
	horizonMs: number;
	/** Events that still matter (upcoming or recurring) imported from one feed; default `MAX_FEED_EVENTS`. */
	maxEvents?: number;
	/** Instances all series of the feed together may work out; default `MAX_FEED_INSTANCES`. */
	maxInstances?: number;
	/** How long the import may take in all, in ms; default `MAX_IMPORT_MS`, read from `clock` between steps. */
	maxMs?: number;
	clock?: () => number;
}

/**
 * Caps that keep one feed's import bounded whatever it holds (see docs/api.md, Calendars): the
 * events that still matter, read in time order (a series by its first instance); the instances
 * all its series may work out together (series-next.ts: a simple rule costs a few, another is
 * expanded at most MAX_SERIES_INSTANCES at a time); and the time the whole import may take, the
 * parse included (ics-blocks.ts cuts it into short steps). Past single events cost nothing and
 * are not counted.
 */
export const MAX_FEED_EVENTS = DEPLOYMENT_DEFAULTS.CALENDAR_FEED_MAX_EVENTS;
export const MAX_FEED_INSTANCES = DEPLOYMENT_DEFAULTS.CALENDAR_FEED_MAX_INSTANCES;
export const MAX_IMPORT_MS = DEPLOYMENT_DEFAULTS.CALENDAR_IMPORT_BUDGET_MS;
export { MAX_SERIES_INSTANCES, MAX_SERIES_PER_DAY } from "./series-next";

const MAX_TITLE = 500;
const MAX_ATTENDEES = 100;
/** Events whose occurrence is worked out between two checks of the time budget. */
const EVENTS_PER_STEP = 50;

/** The import in one go, without pausing: for callers that have nothing else to serve. */
export function importFeed(text: string, window: ImportWindow): FeedImport {
	const steps = importSteps(text, window);
	for (;;) {
		const step = steps.next();
		if (step.done) return step.value;
	}
}

/** The import with a pause between its steps, so requests served beside it are not held up. */
export async function importFeedInSteps(text: string, window: ImportWindow): Promise<FeedImport> {
	const steps = importSteps(text, window);
	for (;;) {
		const step = steps.next();
		if (step.done) return step.value;
		await new Promise((resolve) => setTimeout(resolve, 0));
	}
}

/** The import, yielding between its steps (each part of the parse, each few events). */
function* importSteps(text: string, window: ImportWindow): Generator<void, FeedImport> {
	if (!/^\s*BEGIN:VCALENDAR/i.test(text)) return { ok: false, error: "The calendar feed is not an iCalendar (ICS) file" };
	if (!/END:VCALENDAR\s*$/i.test(text)) return { ok: false, error: "The calendar feed is incomplete (it does not end with END:VCALENDAR)" };
	const clock = window.clock ?? Date.now;
	const maxMs = window.maxMs ?? MAX_IMPORT_MS;
	const started = clock();
	const overTime = () => clock() - started > maxMs;
	const unread = new Set<string>();
	let outOfTime = false;

	const parsed: [string, CalendarComponent | undefined][] = [];
	const parts = feedParts(text);
	for (const [i, part] of parts.entries()) {
		if (i > 0) {
			yield;
			if (overTime()) {
				outOfTime = true;
				for (const uid of parts.slice(i).flatMap((p) => p.uids)) unread.add(uid);
				break;
			}
		}
		let components: Record<string, CalendarComponent | undefined>;
		try {
			components = ical.sync.parseICS(part.text) as Record<string, CalendarComponent | undefined>;
		} catch (err) {
			// Cut before the pattern runs: the message may quote the feed.
			const reason = err instanceof Error ? err.message.slice(0, 400).replace(/,?\s*line=.*$/s, "") : "unknown error";
			return { ok: false, error: `The calendar feed could not be parsed: ${reason.slice(0, 120)}` };
		}
		for (const entry of Object.entries(components)) parsed.push(entry);
	}

	const past: [string, VEvent][] = [];
	let current: [string, VEvent][] = [];
	const seen = new Set<string>();
	for (const [key, component] of parsed) {
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
	const warnings: string[] = [];
	const maxEvents = window.maxEvents ?? MAX_FEED_EVENTS;
	const byStart = ([, a]: [string, VEvent], [, b]: [string, VEvent]) => a.start.getTime() - b.start.getTime();
	if (current.length > maxEvents) {
		current = current.sort(byStart).slice(0, maxEvents);
		warnings.push(`The calendar feed has more than ${maxEvents} upcoming or recurring events; only the first ${maxEvents} are imported`);
	}

	// Worked out earliest first, so a budget that runs out leaves the latest; listed in feed order.
	const maxInstances = window.maxInstances ?? MAX_FEED_INSTANCES;
	const budget = new InstanceBudget(maxInstances);
	const found = new Map<string, ImportedEvent>();
	let seriesOverBudget = 0;
	for (const [i, [uid, event]] of [...current].sort(byStart).entries()) {
		if (!outOfTime && i > 0 && i % EVENTS_PER_STEP === 0) {
			yield;
			outOfTime = overTime();
		}
		if (outOfTime) {
			unread.add(uid);
			continue;
		}
		const cancelled = event.status === "CANCELLED" || event.method === "CANCEL";
		const instance = cancelled ? null : event.rrule ? nextOccurrence(event, window.now, budget) : singleOccurrence(event, window.now);
		if (instance === undefined) {
			seriesOverBudget++;
			unread.add(uid);
			continue;
		}
		found.set(uid, toImported(uid, event, cancelled, instance, window));
	}
	const events = [
		...past.map(([uid, event]) => toImported(uid, event, false, null, window)),
		...current.flatMap(([uid]) => found.get(uid) ?? []),
	];
	if (seriesOverBudget > 0) {
		warnings.push(
			`The calendar feed's recurring events need more than ${count(maxInstances)} instances worked out: ${count(events.length)} events were imported, ${count(seriesOverBudget)} series are left as they were`,
		);
	}
	if (outOfTime) {
		warnings.push(
			`The calendar feed takes more than ${maxMs / 1000} s to import: ${count(events.length)} events were imported, ${count(unread.size - seriesOverBudget)} are left as they were`,
		);
	}
	return { ok: true, events, warning: warnings.length ? warnings.join("; ") : null, unread };
}

const count = (n: number) => n.toLocaleString("en-US");

function toImported(uid: string, event: VEvent, cancelled: boolean, instance: Occurrence | null, window: ImportWindow): ImportedEvent {
	const source = instance?.event ?? event;
	return {
		uid,
		cancelled,
		occurrence: instance ? { start: instance.start, end: instance.end } : null,
		withinHorizon: instance !== null && instance.start.getTime() <= window.now.getTime() + window.horizonMs,
		title: text(source.summary)?.slice(0, MAX_TITLE) || text(event.summary)?.slice(0, MAX_TITLE) || null,
		link: findMeetingLink(source as Record<string, unknown>) ?? findMeetingLink(event as Record<string, unknown>),
		attendees: attendeeNames((source.attendee ?? event.attendee) as VEvent["attendee"]),
		organizer: organizerAddress(source.organizer ?? event.organizer),
		invitees: Math.max(1, people((source.attendee ?? event.attendee) as VEvent["attendee"]).length),
	};
}

/** ORGANIZER;CN=…:mailto:someone@example.com as its address. */
function organizerAddress(value: unknown): string | null {
	const raw = text(value);
	if (!raw) return null;
	return (
		raw
			.replace(/^mailto:/i, "")
			.trim()
			.toLowerCase() || null
	);
}

/** ATTENDEE lines that are people (not rooms or resources). */
function people(attendees: VEvent["attendee"]) {
	const list = attendees === undefined ? [] : Array.isArray(attendees) ? attendees : [attendees];
	return list.filter((a) => {
		if (typeof a === "string") return true;
		if (typeof a !== "object" || a === null) return false;
		const { CUTYPE } = a.params ?? {};
		return CUTYPE !== "ROOM" && CUTYPE !== "RESOURCE";
	});
}

function singleOccurrence(event: VEvent, now: Date): Occurrence | null {
	const end = endOf(event.start, event.end);
	if (end.getTime() <= now.getTime()) return null;
	return { start: new Date(event.start.getTime()), end, event };
}

function text(value: ParameterValue | undefined | unknown): string | null {
	if (typeof value === "string") return value.trim();
	if (value && typeof value === "object" && "val" in value && typeof value.val === "string") return value.val.trim();
	return null;
}

function attendeeNames(attendees: VEvent["attendee"]): string[] {
	const names = new Set<string>();
	for (const attendee of people(attendees)) {
		if (names.size >= MAX_ATTENDEES) break;
		if (typeof attendee !== "object" || attendee === null) continue;
		const { CN } = attendee.params ?? {};
		const name = typeof CN === "string" ? CN.replace(/^"|"$/g, "").trim().slice(0, 200) : "";
		// Outlook often sets CN to the address itself: that is an address, not a name.
		if (name && !name.includes("@")) names.add(name);
	}
	return [...names];
}
