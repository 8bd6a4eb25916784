import { z } from "@hono/zod-openapi";

/** The calendar schemas shared by the calendar routes and their singular compatibility aliases. */

export const AutoJoinRules = z
	.object({
		organizer_only: z.boolean().openapi({ description: "Plan only meetings the calendar's owner organises" }),
		min_attendees: z
			.number()
			.int()
			.nullable()
			.openapi({ description: "Plan only meetings with at least this many people invited; null: any" }),
	})
	.openapi("CalendarAutoJoinRules");

export const CalendarConnection = z
	.object({
		id: z.string(),
		name: z.string(),
		ics_url_set: z.boolean(),
		ics_url_masked: z.string().nullable(),
		auto_join: z.boolean(),
		bot_name: z.string(),
		enabled: z.boolean(),
		kind: z.enum(["ics", "google", "microsoft"]),
		account: z.string().nullable().openapi({ description: "The signed-in address (Google email, Microsoft UPN); null for ICS feeds" }),
		auto_join_rules: AutoJoinRules,
	})
	.openapi("CalendarConnection");

export const SyncCountsSchema = z.object({ created: z.number().int(), updated: z.number().int(), cancelled: z.number().int() });
export const SyncStampSchema = z
	.object({
		calendar_id: z.string(),
		calendar_name: z.string(),
		last_sync: z.string(),
		last_error: z.string().nullable(),
		counts: SyncCountsSchema,
	})
	.openapi("CalendarSyncStamp");

/**
 * A connection as a write answers it: with the stamp of the sync the write ran at once (a new
 * connection, a new feed address, enabling), or null when it ran none.
 */
export const CalendarConnectionWritten = CalendarConnection.extend({
	// A union, not .nullable(): that would make the shared stamp component itself nullable.
	sync: z.union([SyncStampSchema, z.null()]),
}).openapi("CalendarConnectionWritten");

/** Name and bot name: 1 to 100 characters once trimmed. */
export const calendarText = () => z.string().trim().min(1).max(100);
