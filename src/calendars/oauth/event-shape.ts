/**
 * A provider's event as the plan code takes an ICS event (ics-import.ts's ImportedEvent): the
 * occurrence, whether it is within the import horizon, the title, the meeting link, attendees'
 * display names, the organiser and how many were invited (for the auto-join rules).
 */
import { type ParsedMeetingLink, parseMeetingLink } from "../../meetings/meeting-link";
import { findMeetingLink } from "../event-link";
import type { ImportedEvent } from "../ics-import";
import type { ListingWindow } from "./calendar-provider";

const MAX_TITLE = 500;
const MAX_ATTENDEES = 100;

export interface EventFacts {
	id: string;
	cancelled: boolean;
	start: Date | null;
	end: Date | null;
	title: unknown;
	/** Conference links first (Meet hangoutLink, Teams joinUrl), then free text (location, body) for Zoom and others. */
	conferenceLinks: unknown[];
	freeText: Record<string, unknown>;
	attendees: { name: unknown; address: unknown; resource: boolean }[];
	organizer: string | null;
	organizedByMe: boolean;
}

export function importedEvent(facts: EventFacts, window: ListingWindow): ImportedEvent {
	const { start, end } = facts;
	const upcoming = start !== null && end !== null && !Number.isNaN(start.getTime()) && end.getTime() > window.now.getTime();
	const people = facts.attendees.filter((a) => !a.resource);
	const names = new Set<string>();
	for (const person of people) {
		if (names.size >= MAX_ATTENDEES) break;
		const name = typeof person.name === "string" ? person.name.trim().slice(0, 200) : "";
		if (name && !name.includes("@")) names.add(name);
	}
	return {
		uid: facts.id,
		cancelled: facts.cancelled,
		occurrence: !facts.cancelled && upcoming ? { start, end } : null,
		withinHorizon: upcoming && start.getTime() <= window.now.getTime() + window.horizonMs,
		title: typeof facts.title === "string" && facts.title.trim() ? facts.title.trim().slice(0, MAX_TITLE) : null,
		link: linkOf(facts),
		attendees: [...names],
		organizer: facts.organizer?.toLowerCase() ?? null,
		organizedByMe: facts.organizedByMe,
		invitees: Math.max(1, people.length),
	};
}

function linkOf(facts: EventFacts): ParsedMeetingLink | null {
	for (const candidate of facts.conferenceLinks) {
		const parsed = typeof candidate === "string" ? parseMeetingLink(candidate) : null;
		if (parsed) return parsed;
	}
	return findMeetingLink(facts.freeText);
}

/** A date-time the provider wrote, or null (an all-day event's `date` has no time to join at). */
export function instant(value: unknown): Date | null {
	if (typeof value !== "string" || value === "") return null;
	const at = new Date(value);
	return Number.isNaN(at.getTime()) ? null : at;
}

export const record = (value: unknown): Record<string, unknown> =>
	value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
