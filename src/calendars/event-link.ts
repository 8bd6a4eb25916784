/**
 * The meeting link of an imported event, found in its fields. A feed is untrusted text of up to
 * the feed size limit, so the work here stays linear in what is read: only the first
 * `MAX_LINK_FIELD_CHARS` of a field are read, the URL pattern cannot backtrack, and trailing
 * punctuation is trimmed with a loop (a regex anchored at `$` retries from every character of a
 * long run, which V8 under Node takes quadratic time for).
 */
import { type ParsedMeetingLink, parseMeetingLink } from "../meetings/meeting-link";

/** Characters of one field read for a link; invitations put the link near the top. */
export const MAX_LINK_FIELD_CHARS = 32 * 1024;

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
/** Punctuation that ends a sentence or closes brackets around a link, not part of it. */
const TRAILING_PUNCTUATION = new Set([")", ".", ",", ";", ":", "!", "?", "]"]);

/** The first Meet, Zoom or Teams link in the event's fields; null when there is none. */
export function findMeetingLink(event: Record<string, unknown>): ParsedMeetingLink | null {
	const rest = Object.keys(event).filter((k) => !LINK_FIELDS.includes(k) && !SKIPPED_FIELDS.has(k));
	for (const field of [...LINK_FIELDS, ...rest]) {
		const value = fieldText(event[field]);
		if (!value) continue;
		const cut = value.length > MAX_LINK_FIELD_CHARS;
		const read = cut ? value.slice(0, MAX_LINK_FIELD_CHARS) : value;
		for (const match of read.matchAll(URL_IN_TEXT)) {
			// A candidate running into the cut may continue past it: it is not the link as written.
			if (cut && match.index + match[0].length === read.length) continue;
			const parsed = parseMeetingLink(withoutTrailingPunctuation(match[0]));
			if (parsed) return parsed;
		}
	}
	return null;
}

export function withoutTrailingPunctuation(candidate: string): string {
	let end = candidate.length;
	while (end > 0 && TRAILING_PUNCTUATION.has(candidate.charAt(end - 1))) end--;
	return candidate.slice(0, end);
}

function fieldText(value: unknown): string | null {
	if (typeof value === "string") return value.trim();
	if (value && typeof value === "object" && "val" in value && typeof value.val === "string") return value.val.trim();
	return null;
}
