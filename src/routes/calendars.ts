import { createRoute, z } from "@hono/zod-openapi";
import { connectionView, findConnection, listConnections, requireSyncWired, stampOf } from "../calendars/calendar-store";
import { createConnection, feedColumns, syncAtOnce, syncNow, updateConnection } from "../calendars/connections";
import { disconnectCalendar } from "../calendars/disconnect";
import type { CalendarConnectionRow } from "../db/schema";
import { ApiError, notFound } from "../errors";
import { CalendarConnection, CalendarConnectionWritten, calendarText, SyncStampSchema } from "./calendar-schemas";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The calendar routes (docs/api.md#calendars): named ICS connections and their syncs. */
export const calendarRoutes = routeModule();

const CalendarId = z.object({ calendar_id: z.string().min(1).max(100) });

calendarRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendars",
		responses: { 200: jsonResponse(z.object({ calendars: z.array(CalendarConnection) }), "The account's calendar connections") },
	}),
	async (c) => {
		const rows = await listConnections(c.env, c.get("identity").userId);
		rows.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
		return c.json({ calendars: rows.map(connectionView) }, 200);
	},
);

calendarRoutes.openapi(
	createRoute({
		method: "post",
		path: "/user/calendars",
		request: {
			body: jsonBody(
				z.strictObject({
					name: calendarText(),
					ics_url: z.string(),
					auto_join: z.boolean().optional(),
					bot_name: calendarText().nullable().optional(),
				}),
			),
		},
		responses: { 201: jsonResponse(CalendarConnectionWritten, "The new connection, feed address masked, and its first sync's stamp") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const now = c.get("clock").now();
		const row = await createConnection(c.env, c.get("identity").userId, now, {
			name: body.name,
			icsUrl: body.ics_url,
			autoJoin: body.auto_join ?? true,
			botName: body.bot_name ?? undefined,
		});
		// Synced at once, so the calendar's plans are there when the answer is.
		const sync = await syncAtOnce(c.env, row, now);
		return c.json({ ...connectionView(row), sync }, 201);
	},
);

calendarRoutes.openapi(
	createRoute({
		method: "patch",
		path: "/user/calendars/{calendar_id}",
		request: {
			params: CalendarId,
			body: jsonBody(
				z.strictObject({
					name: calendarText().optional(),
					ics_url: z.string().nullable().optional(),
					auto_join: z.boolean().optional(),
					bot_name: calendarText().optional(),
					enabled: z.boolean().optional(),
					auto_join_rules: z
						.strictObject({
							organizer_only: z.boolean().optional(),
							min_attendees: z.number().int().min(1).max(1000).nullable().optional(),
						})
						.optional(),
				}),
			),
		},
		responses: {
			200: jsonResponse(
				CalendarConnectionWritten,
				"The connection; a new feed address or enabling syncs at once, other changes reach its plans at the next sync",
			),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		const row = await findConnection(c.env, c.get("identity").userId, c.req.valid("param").calendar_id);
		const values: Partial<CalendarConnectionRow> = {};
		if (body.name !== undefined) values.name = body.name;
		if (body.auto_join !== undefined) values.autoJoin = body.auto_join;
		if (body.bot_name !== undefined) values.botName = body.bot_name;
		if (body.enabled !== undefined) values.enabled = body.enabled;
		if (body.ics_url !== undefined && row.kind !== "ics")
			throw new ApiError(422, "ics_url applies only to ICS calendars; this one is signed in");
		const rules = body.auto_join_rules;
		if (rules?.organizer_only !== undefined) values.organizerOnly = rules.organizer_only;
		if (rules?.min_attendees !== undefined) values.minAttendees = rules.min_attendees;
		// New rules apply to every event, not only changed ones: the next listing is a full one.
		if (rules) values.syncCursor = null;
		if (body.ics_url === null) Object.assign(values, { icsUrlSealed: null, icsUrlMasked: null });
		else if (body.ics_url !== undefined) Object.assign(values, await feedColumns(c.env, body.ics_url));
		const now = c.get("clock").now();
		const updated = await updateConnection(c.env, row, values, now);
		const syncable = typeof body.ics_url === "string" || (body.enabled === true && !row.enabled);
		const sync = syncable ? await syncAtOnce(c.env, updated, now) : null;
		return c.json({ ...connectionView(updated), sync }, 200);
	},
);

calendarRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/user/calendars/{calendar_id}",
		request: { params: CalendarId },
		responses: { 204: { description: "Deleted: the feed address is gone at once, its own plans with it" } },
	}),
	async (c) => {
		const row = await findConnection(c.env, c.get("identity").userId, c.req.valid("param").calendar_id);
		await disconnectCalendar(c.env, row);
		return c.body(null, 204);
	},
);

calendarRoutes.openapi(
	createRoute({
		method: "post",
		path: "/user/calendars/{calendar_id}/sync",
		request: { params: CalendarId },
		responses: {
			200: jsonResponse(SyncStampSchema, "The sync stamp; feed problems are reported in last_error"),
			503: jsonResponse(z.object({ detail: z.string() }), "Calendar sync is not wired on this deployment"),
		},
	}),
	async (c) => {
		requireSyncWired(c.env);
		const row = await findConnection(c.env, c.get("identity").userId, c.req.valid("param").calendar_id);
		if (!row.enabled) throw notFound("Calendar is disabled");
		return c.json(await syncNow(c.env, row, c.get("clock").now()), 200);
	},
);

calendarRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendars/{calendar_id}/sync",
		request: { params: CalendarId },
		responses: { 200: jsonResponse(z.union([SyncStampSchema, z.strictObject({})]), "The latest sync stamp, or {} before the first sync") },
	}),
	async (c) => {
		const row = await findConnection(c.env, c.get("identity").userId, c.req.valid("param").calendar_id);
		return c.json(stampOf(row) ?? {}, 200);
	},
);
