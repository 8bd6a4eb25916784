/**
 * The Calendars page's words (docs/dashboard.md#calendars): what kind of calendar a connection
 * is, its auto-join rules, its last sync, a refusal of the calendar routes with each field named
 * as the form labels it, and the marker a calendar sign-in leaves in the address on its return.
 * Pure: no DOM, no network.
 */
import { MeetbotApiError } from "@meetbot/client";
import type { Calendar, SyncStamp } from "./types";
import { detailWords, fieldWords } from "./words";

export type CalendarKind = Calendar["kind"];
/** A sign-in provider the deployment may offer (GET /user/calendars/providers). */
export type CalendarProvider = Exclude<CalendarKind, "ics">;

export type AutoJoinRules = Calendar["auto_join_rules"];

/** A connection as the page reads it: the declared one (the Worker serves this page with its API). */
export type CalendarView = Calendar;

const KIND_WORDS: Record<CalendarKind, string> = {
	ics: "ICS feed",
	google: "Google Calendar",
	microsoft: "Microsoft 365",
};

export const PROVIDER_WORDS: Record<CalendarProvider, string> = { google: "Google", microsoft: "Microsoft" };

export function kindWords(calendar: CalendarView): string {
	return KIND_WORDS[calendar.kind];
}

/** Where it comes from: the signed-in account, else the feed's masked address. */
export function sourceWords(calendar: CalendarView): string {
	if (calendar.account) return calendar.account;
	return calendar.ics_url_masked ?? "No feed address";
}

export function autoJoinWords(calendar: CalendarView): string {
	return calendar.auto_join ? `Joins its meetings by itself, as ${calendar.bot_name}` : "Does not join by itself";
}

/** The rules in words: which meetings the calendar's plans keep. */
export function rulesWords(rules: AutoJoinRules): string {
	const size = rules.min_attendees !== null && rules.min_attendees > 1 ? `with at least ${rules.min_attendees} attendees` : null;
	if (!rules.organizer_only) return size ? `Joins meetings ${size}` : "Joins every meeting with a link";
	return size ? `Joins only meetings you organise, ${size}` : "Joins only meetings you organise";
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a sync did: "2 meetings planned, 1 moved, 1 cancelled", or that nothing changed. */
export function countsWords(counts: { created: number; updated: number; cancelled: number }): string {
	const parts = [
		counts.created ? `${plural(counts.created, "meeting", "meetings")} planned` : "",
		counts.updated ? `${plural(counts.updated, "plan", "plans")} updated` : "",
		counts.cancelled ? `${plural(counts.cancelled, "plan", "plans")} cancelled` : "",
	].filter(Boolean);
	return parts.length > 0 ? parts.join(", ") : "Nothing changed";
}

/** The line shown after a calendar is added: what its first sync (run at once) did. */
export function addedWords(name: string, sync: SyncStamp | null | undefined): string {
	if (!sync || !("counts" in sync)) return `Calendar ${name} added; it syncs within a few minutes.`;
	if (sync.last_error) return `Calendar ${name} added, but its first sync failed: ${sync.last_error}`;
	return `Calendar ${name} added and synced: ${countsWords(sync.counts).toLowerCase()}.`;
}

/**
 * A refusal in people's words: the API's sentence, or the innermost field a person filled in
 * ("At least this many attendees", not "Auto-join rules, …"), named by the dashboard's one field table.
 */
export function calendarRefusal(error: unknown): string {
	if (!(error instanceof MeetbotApiError)) return error instanceof Error ? error.message : String(error);
	const { detail, status } = error;
	if (typeof detail === "string") return detailWords(detail);
	const first = detail[0];
	if (!first) return `The request was refused (HTTP ${status})`;
	const innermost = [...first.loc].reverse().find((part): part is string => typeof part === "string" && !/^\d+$/.test(part));
	const field = innermost ? fieldWords([innermost]) : "";
	const message = first.msg || "is not valid";
	return field ? `${field}: ${message}` : message;
}

/** OAuth 2.0's error codes (RFC 6749, 4.1.2.1) as a person would put them. */
const SIGN_IN_ERRORS: Record<string, string> = {
	access_denied: "access was not granted at the provider",
	invalid_request: "the provider refused the request",
	unauthorized_client: "this deployment is not allowed to ask the provider for calendar access",
	invalid_scope: "the provider refused the calendar access asked for",
	server_error: "the provider had an error",
	temporarily_unavailable: "the provider is busy; try again shortly",
};

export type SignInReturn = { connected: string } | { error: string } | null;

/**
 * What a calendar sign-in left in the address on its return: `calendar=<id>` once connected, or
 * an error marker (`calendar_error=`, or OAuth's own `error=` with `error_description=`). Read
 * from the hash's query (`#/calendars?calendar=…`) and the page's (`/?calendar=…#/calendars`).
 */
export function signInReturn(...queries: URLSearchParams[]): SignInReturn {
	for (const query of queries) {
		const code = query.get("calendar_error") ?? query.get("error");
		if (code) {
			const described = query.get("error_description");
			return { error: `The calendar was not connected: ${SIGN_IN_ERRORS[code] ?? described ?? code}` };
		}
		const id = query.get("calendar");
		if (id) return { connected: id };
	}
	return null;
}

/** The query keys a sign-in return leaves, taken out of the address once read. */
export const SIGN_IN_RETURN_KEYS = ["calendar", "calendar_error", "error", "error_description"];
