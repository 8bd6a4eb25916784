import { z } from "@hono/zod-openapi";

/** The calendar schemas shared by the calendar routes and their singular compatibility aliases. */

export const CalendarConnection = z
	.object({
		id: z.string(),
		name: z.string(),
		ics_url_set: z.boolean(),
		ics_url_masked: z.string().nullable(),
		auto_join: z.boolean(),
		bot_name: z.string(),
		enabled: z.boolean(),
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
