import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import {
	activeConnections,
	aggregateStamp,
	legacyBotName,
	requireSyncWired,
	saveLegacyBotName,
	stampOf,
} from "../calendars/calendar-store";
import { createConnection, feedColumns, syncNow, updateConnection } from "../calendars/connections";
import { disconnectCalendar } from "../calendars/disconnect";
import type { CalendarConnectionRow } from "../db/schema";
import { notFound } from "../errors";
import { calendarText, SyncCountsSchema, SyncStampSchema } from "./calendar-schemas";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * The singular compatibility endpoints of older clients: one calendar per account, which is the
 * account's first active (enabled) connection, plus the legacy user-wide bot name. Their syncs
 * cover the active connections only, as background sync does.
 */
export const calendarCompatRoutes = routeModule();

const SingleCalendar = z
	.object({ ics_url_set: z.boolean(), ics_url_masked: z.string().nullable(), auto_join: z.boolean(), bot_name: z.string().nullable() })
	.openapi("CalendarCompat");

const AggregateStamp = z.object({ last_sync: z.string(), last_error: z.string().nullable(), counts: SyncCountsSchema });

/** The singular routes are the reference's one ICS feed: signed-in calendars are not theirs to change or disconnect. */
async function activeFeeds(env: AppEnv["Bindings"], userId: number) {
	return (await activeConnections(env, userId)).filter((row) => row.kind === "ics");
}

async function singleView(c: Context<AppEnv>, first: CalendarConnectionRow | undefined) {
	const legacy = await legacyBotName(c.env, c.get("identity").userId);
	return {
		ics_url_set: first?.icsUrlSealed != null,
		ics_url_masked: first?.icsUrlSealed != null ? (first.icsUrlMasked ?? null) : null,
		auto_join: first?.autoJoin ?? true,
		bot_name: legacy ?? first?.botName ?? null,
	};
}

calendarCompatRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendar",
		responses: { 200: jsonResponse(SingleCalendar, "The first active connection, masked, with the legacy bot name") },
	}),
	async (c) => {
		const [first] = await activeFeeds(c.env, c.get("identity").userId);
		return c.json(await singleView(c, first), 200);
	},
);

calendarCompatRoutes.openapi(
	createRoute({
		method: "put",
		path: "/user/calendar",
		request: {
			body: jsonBody(
				// Unknown fields are ignored here, as the reference does; the plural routes refuse them (as it does).
				z.object({
					ics_url: z
						.string()
						.nullable()
						.optional()
						.openapi({ description: "The feed's secret address; null disconnects; absent: the feed stays as it is" }),
					auto_join: z.boolean().optional(),
					bot_name: calendarText().nullable().optional(),
				}),
			),
		},
		responses: {
			200: jsonResponse(
				SingleCalendar,
				"The first active connection after the change; ics_url null disconnects it, and only the fields sent change",
			),
		},
	}),
	async (c) => {
		const body = c.req.valid("json");
		const { userId } = c.get("identity");
		let [first] = await activeFeeds(c.env, userId);
		if (body.ics_url === undefined) {
			// As the reference: without ics_url only the fields sent change, on the connection there is (none is made).
			if (body.bot_name) await saveLegacyBotName(c.env, userId, body.bot_name);
			const named = {
				...(body.auto_join !== undefined ? { autoJoin: body.auto_join } : {}),
				...(body.bot_name ? { botName: body.bot_name } : {}),
			};
			if (first && Object.keys(named).length > 0) first = await updateConnection(c.env, first, named, c.get("clock").now());
			return c.json(await singleView(c, first), 200);
		}
		if (body.ics_url === null) {
			if (first) await disconnectCalendar(c.env, first);
			if (body.bot_name) await saveLegacyBotName(c.env, userId, body.bot_name);
			return c.json(await singleView(c, undefined), 200);
		}
		// Checked before anything is stored, so a refused address changes nothing.
		const feed = await feedColumns(c.env, body.ics_url);
		if (body.bot_name) await saveLegacyBotName(c.env, userId, body.bot_name);
		if (first) {
			first = await updateConnection(
				c.env,
				first,
				{
					...feed,
					...(body.auto_join !== undefined ? { autoJoin: body.auto_join } : {}),
					...(body.bot_name ? { botName: body.bot_name } : {}),
				},
				c.get("clock").now(),
			);
		} else {
			first = await createConnection(c.env, userId, c.get("clock").now(), {
				name: "Calendar",
				icsUrl: body.ics_url,
				autoJoin: body.auto_join ?? true,
				botName: body.bot_name ?? undefined,
			});
		}
		return c.json(await singleView(c, first), 200);
	},
);

calendarCompatRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendar/sync",
		responses: {
			200: jsonResponse(
				z.union([AggregateStamp, z.strictObject({})]),
				"The aggregate last-sync stamp of the active connections, or {} before a sync",
			),
		},
	}),
	async (c) => {
		const stamps = (await activeConnections(c.env, c.get("identity").userId)).flatMap((row) => stampOf(row) ?? []);
		return c.json(stamps.length > 0 ? aggregateStamp(stamps) : {}, 200);
	},
);

calendarCompatRoutes.openapi(
	createRoute({
		method: "post",
		path: "/user/calendar/sync",
		responses: {
			200: jsonResponse(
				AggregateStamp.extend({ calendars: z.array(SyncStampSchema) }),
				"Aggregate counts and one stamp per active connection",
			),
			503: jsonResponse(z.object({ detail: z.string() }), "Calendar sync is not wired on this deployment"),
		},
	}),
	async (c) => {
		requireSyncWired(c.env);
		const active = (await activeConnections(c.env, c.get("identity").userId)).filter((row) => row.icsUrlSealed !== null);
		if (active.length === 0) throw notFound("No active calendar feed");
		const calendars = [];
		for (const row of active) calendars.push(await syncNow(c.env, row, c.get("clock").now()));
		return c.json({ ...aggregateStamp(calendars), calendars }, 200);
	},
);
