/**
 * The auto-join rules a connection of any kind applies to its events before they become plans
 * (docs/api.md#calendars-you-sign-into): only meetings I organise, and at least N people
 * invited. An event that does not pass is not planned, and a plan whose event stops passing is
 * removed as if the event had left the calendar. Cancellations always pass, so they still cancel.
 */
import type { CalendarConnectionRow } from "../db/schema";
import type { ImportedEvent } from "./ics-import";

export interface AutoJoinRules {
	organizer_only: boolean;
	min_attendees: number | null;
}

export const rulesOf = (row: Pick<CalendarConnectionRow, "organizerOnly" | "minAttendees">): AutoJoinRules => ({
	organizer_only: row.organizerOnly,
	min_attendees: row.minAttendees,
});

/**
 * Whether the event is one the rules plan. `me`: the addresses that are the user (the account's
 * email, the signed-in account), lower case, for an ICS ORGANIZER; providers say it themselves.
 */
export function passesRules(event: ImportedEvent, rules: AutoJoinRules, me: ReadonlySet<string>): boolean {
	if (event.cancelled) return true;
	if (rules.organizer_only) {
		const mine = event.organizedByMe ?? (event.organizer != null && me.has(event.organizer));
		if (!mine) return false;
	}
	if (rules.min_attendees !== null && (event.invitees ?? 1) < rules.min_attendees) return false;
	return true;
}
