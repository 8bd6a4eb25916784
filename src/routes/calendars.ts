import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import {
	connectionView,
	defaultBotName,
	findConnection,
	MAX_ACTIVE_CONNECTIONS,
	MAX_CONNECTIONS,
	newConnectionId,
	nextSyncAt,
	requireSyncWired,
	type SyncStamp,
	stampOf,
} from "../calendars/calendar-store";
import { disconnectCalendar } from "../calendars/disconnect";
import { acceptIcsUrl, maskIcsUrl } from "../calendars/ics-url";
import { syncConnection, takeSyncLease } from "../calendars/sync";
import { type CalendarConnectionRow, calendarConnections } from "../db/schema";
import { conflict, notFound } from "../errors";
import { db } from "../meetings/meeting-store";
import { outboundPolicy } from "../outbound/url-guard";
import { seal } from "../settings/secret-box";
import { jsonBody, jsonResponse, routeModule } from "./openapi-app";

/** The calendar routes (docs/api.md#calendars): named ICS connections and their syncs. */
export const calendarRoutes = routeModule();

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

/** Name and bot name: 1 to 100 characters once trimmed. */
export const calendarText = () => z.string().trim().min(1).max(100);
const CalendarId = z.object({ calendar_id: z.string().min(1).max(100) });

/** Seals an accepted feed address; returns the columns that store it. */
export async function feedColumns(c: Context<AppEnv>, raw: string) {
	const clear = acceptIcsUrl(raw, outboundPolicy(c.env));
	return { icsUrlSealed: await seal(c.env.SECRETS_KEY, clear), icsUrlMasked: maskIcsUrl(clear) };
}

const tooManyActive = () =>
	conflict(`At most ${MAX_ACTIVE_CONNECTIONS} active calendar connections per account; disable or delete one first`);
const tooMany = () => conflict(`At most ${MAX_CONNECTIONS} calendar connections per account, disabled ones included; delete one first`);

/**
 * Creates an enabled connection unless the account already has the most active ones (10) or the
 * most in all (50), 409 either way. The count and the insert are one statement, so concurrent
 * requests cannot pass the limit together.
 */
export async function createConnection(
	c: Context<AppEnv>,
	fields: { name: string; icsUrl: string; autoJoin: boolean; botName: string | undefined },
): Promise<CalendarConnectionRow> {
	const { userId } = c.get("identity");
	const feed = await feedColumns(c, fields.icsUrl);
	const botName = fields.botName ?? (await defaultBotName(c.env, userId));
	const now = c.get("clock").now();
	const id = newConnectionId();
	const inserted = await c.env.DB.prepare(
		`INSERT INTO calendar_connections (id, user_id, name, ics_url_sealed, ics_url_masked, auto_join, bot_name, enabled, next_sync_at, created_at, updated_at)
		 SELECT ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?
		 WHERE (SELECT count(*) FROM calendar_connections WHERE user_id = ? AND enabled = 1) < ?
		   AND (SELECT count(*) FROM calendar_connections WHERE user_id = ?) < ?
		 RETURNING id`,
	)
		.bind(
			id,
			userId,
			fields.name,
			feed.icsUrlSealed,
			feed.icsUrlMasked,
			fields.autoJoin ? 1 : 0,
			botName,
			nextSyncAt(c.env, now, true),
			now.toISOString(),
			now.toISOString(),
			userId,
			MAX_ACTIVE_CONNECTIONS,
			userId,
			MAX_CONNECTIONS,
		)
		.first();
	if (!inserted) {
		const total = await c.env.DB.prepare("SELECT count(*) AS n FROM calendar_connections WHERE user_id = ?")
			.bind(userId)
			.first<number>("n");
		throw (total ?? 0) >= MAX_CONNECTIONS ? tooMany() : tooManyActive();
	}
	return findConnection(c.env, userId, id);
}

/**
 * Changes a connection. Enabling a disabled one makes it active, so it is refused (409) while
 * the account already has the most active ones; the check is part of the update, race-free.
 */
export async function updateConnection(c: Context<AppEnv>, row: CalendarConnectionRow, values: Partial<CalendarConnectionRow>) {
	const enabling = values.enabled === true && !row.enabled;
	const roomForOneMore = sql`(SELECT count(*) FROM calendar_connections WHERE user_id = ${row.userId} AND enabled = 1 AND id <> ${row.id}) < ${MAX_ACTIVE_CONNECTIONS}`;
	const updated = await db(c.env)
		.update(calendarConnections)
		.set({ ...values, updatedAt: c.get("clock").now().toISOString() })
		.where(and(eq(calendarConnections.id, row.id), enabling ? roomForOneMore : undefined))
		.returning()
		.get();
	if (updated) return updated;
	if (
		enabling &&
		(await db(c.env).select({ id: calendarConnections.id }).from(calendarConnections).where(eq(calendarConnections.id, row.id)).get())
	) {
		throw tooManyActive();
	}
	throw notFound("Calendar not found");
}

/** A sync started by a request: waits briefly for a background sync of the same connection. */
export async function syncNow(c: Context<AppEnv>, row: CalendarConnectionRow): Promise<SyncStamp> {
	for (let waited = 0; !(await takeSyncLease(c.env, row.id)); waited += 250) {
		if (waited >= 10_000) throw conflict("A sync of this calendar is already running; try again shortly");
		await new Promise((r) => setTimeout(r, 250));
	}
	const fresh = await findConnection(c.env, row.userId, row.id);
	return syncConnection(c.env, fresh, { now: c.get("clock").now() });
}

calendarRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendars",
		responses: { 200: jsonResponse(z.object({ calendars: z.array(CalendarConnection) }), "The account's calendar connections") },
	}),
	async (c) => {
		const rows = await db(c.env)
			.select()
			.from(calendarConnections)
			.where(eq(calendarConnections.userId, c.get("identity").userId))
			.all();
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
		responses: { 201: jsonResponse(CalendarConnection, "The new connection, feed address masked; not synced yet") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const row = await createConnection(c, {
			name: body.name,
			icsUrl: body.ics_url,
			autoJoin: body.auto_join ?? true,
			botName: body.bot_name ?? undefined,
		});
		return c.json(connectionView(row), 201);
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
				}),
			),
		},
		responses: { 200: jsonResponse(CalendarConnection, "The connection; the next sync applies the change to its plans") },
	}),
	async (c) => {
		const body = c.req.valid("json");
		const row = await findConnection(c.env, c.get("identity").userId, c.req.valid("param").calendar_id);
		const values: Partial<CalendarConnectionRow> = {};
		if (body.name !== undefined) values.name = body.name;
		if (body.auto_join !== undefined) values.autoJoin = body.auto_join;
		if (body.bot_name !== undefined) values.botName = body.bot_name;
		if (body.enabled !== undefined) values.enabled = body.enabled;
		if (body.ics_url === null) Object.assign(values, { icsUrlSealed: null, icsUrlMasked: null });
		else if (body.ics_url !== undefined) Object.assign(values, await feedColumns(c, body.ics_url));
		return c.json(connectionView(await updateConnection(c, row, values)), 200);
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
		return c.json(await syncNow(c, row), 200);
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
