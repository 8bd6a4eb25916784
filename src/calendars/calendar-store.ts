/**
 * Drizzle store: calendar connections, their event mappings and preferences.
 * Calendar connections in D1: the masked view clients see, the sync stamp, the legacy
 * user-wide bot name, and the settings that decide when a connection is synced next.
 */
import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { DEFAULT_BOT_NAME } from "../bots/launch";
import { db } from "../db";
import { readInIdChunks } from "../db/id-chunks";
import {
	type CalendarConnectionRow,
	type CalendarEventRow,
	calendarConnections,
	calendarEvents,
	calendarPreferences,
	users,
} from "../db/schema";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { setting } from "../settings/deployment-defaults";
import { unseal } from "../settings/secret-box";
import { rulesOf } from "./auto-join-rules";

/** Enabled connections per account: the "active" ones of docs/api.md#calendars, which sync (409 for the eleventh). */
export const MAX_ACTIVE_CONNECTIONS = 10;
/** Connections per account, disabled ones included, so that disabling keeps the table bounded. */
export const MAX_CONNECTIONS = 50;

export interface SyncCounts {
	created: number;
	updated: number;
	cancelled: number;
}

export const zeroCounts = (): SyncCounts => ({ created: 0, updated: 0, cancelled: 0 });

/** The connection as every response shows it: the feed address masked, never in full. */
export function connectionView(row: CalendarConnectionRow) {
	return {
		id: row.id,
		name: row.name,
		ics_url_set: row.icsUrlSealed !== null,
		ics_url_masked: row.icsUrlSealed !== null ? row.icsUrlMasked : null,
		auto_join: row.autoJoin,
		bot_name: row.botName,
		enabled: row.enabled,
		kind: row.kind,
		account: row.account,
		auto_join_rules: rulesOf(row),
	};
}

/** What an imported meeting says about where it came from: exactly these four keys. */
export function calendarSource(row: Pick<CalendarConnectionRow, "id" | "name" | "autoJoin" | "botName">) {
	return { id: row.id, name: row.name, auto_join: row.autoJoin, bot_name: row.botName };
}
export type CalendarSource = ReturnType<typeof calendarSource>;

export interface SyncStamp {
	calendar_id: string;
	calendar_name: string;
	last_sync: string;
	last_error: string | null;
	counts: SyncCounts;
}

/** The connection's latest sync stamp; null before its first sync. */
export function stampOf(row: CalendarConnectionRow): SyncStamp | null {
	if (!row.lastSyncAt) return null;
	return {
		calendar_id: row.id,
		calendar_name: row.name,
		last_sync: row.lastSyncAt,
		last_error: row.lastError,
		counts: row.lastCounts ?? zeroCounts(),
	};
}

/** Several stamps as one, for the singular endpoints: the newest time, every error, summed counts. */
export function aggregateStamp(stamps: SyncStamp[]) {
	const errors = stamps.filter((s) => s.last_error !== null);
	const last_error =
		errors.length === 0
			? null
			: stamps.length === 1
				? errors[0]?.last_error
				: errors.map((s) => `${s.calendar_name}: ${s.last_error}`).join("; ");
	return {
		last_sync:
			stamps
				.map((s) => s.last_sync)
				.sort()
				.at(-1) ?? "",
		last_error: last_error ?? null,
		counts: stamps.reduce(
			(sum, s) => ({
				created: sum.created + s.counts.created,
				updated: sum.updated + s.counts.updated,
				cancelled: sum.cancelled + s.counts.cancelled,
			}),
			zeroCounts(),
		),
	};
}

/** ISO 8601 with an explicit offset, as sync times are written (docs/api.md#conventions). */
export const isoWithOffset = (at: Date) => at.toISOString().replace(/Z$/, "+00:00");

export async function listConnections(env: Env, userId: number): Promise<CalendarConnectionRow[]> {
	return db(env)
		.select()
		.from(calendarConnections)
		.where(eq(calendarConnections.userId, userId))
		.orderBy(asc(calendarConnections.createdAt), asc(calendarConnections.id))
		.all();
}

/**
 * The account's active (enabled) connections, oldest first: the ones the singular endpoints
 * stand for and sync. A disabled connection is kept but is not the account's calendar.
 */
export async function activeConnections(env: Env, userId: number): Promise<CalendarConnectionRow[]> {
	return (await listConnections(env, userId)).filter((row) => row.enabled);
}

export async function findConnection(env: Env, userId: number, id: string): Promise<CalendarConnectionRow> {
	const row = await db(env)
		.select()
		.from(calendarConnections)
		.where(and(eq(calendarConnections.id, id), eq(calendarConnections.userId, userId)))
		.get();
	if (!row) throw notFound("Calendar not found");
	return row;
}

/**
 * Writes a connection's columns; when `enabling`, only while the account has room for one more
 * active connection (the count is part of the update, race-free). The row as written, or undefined.
 */
export async function updateConnectionRow(
	env: Env,
	row: CalendarConnectionRow,
	values: Partial<CalendarConnectionRow>,
	enabling: boolean,
): Promise<CalendarConnectionRow | undefined> {
	const roomForOneMore = sql`(SELECT count(*) FROM calendar_connections WHERE user_id = ${row.userId} AND enabled = 1 AND id <> ${row.id}) < ${MAX_ACTIVE_CONNECTIONS}`;
	return db(env)
		.update(calendarConnections)
		.set(values)
		.where(and(eq(calendarConnections.id, row.id), enabling ? roomForOneMore : undefined))
		.returning()
		.get();
}

export async function connectionExists(env: Env, id: string): Promise<boolean> {
	return (
		(await db(env).select({ id: calendarConnections.id }).from(calendarConnections).where(eq(calendarConnections.id, id)).get()) !==
		undefined
	);
}

/** Moves a connection's next sync (out of line before a sync runs, so one that never finishes is not due first forever). */
export async function setNextSync(env: Env, connectionId: string, nextSyncAt: string): Promise<void> {
	await db(env).update(calendarConnections).set({ nextSyncAt }).where(eq(calendarConnections.id, connectionId)).run();
}

/** Takes the connection's sync lease; false while another sync of it runs. */
export async function takeSyncLease(env: Env, connectionId: string): Promise<boolean> {
	// Wall-clock time, not the sync's clock: the lease is about syncs running at the same moment.
	const until = new Date(Date.now() + 120_000).toISOString();
	const taken = await db(env)
		.update(calendarConnections)
		.set({ syncLeaseUntil: until })
		.where(
			and(
				eq(calendarConnections.id, connectionId),
				or(isNull(calendarConnections.syncLeaseUntil), lt(calendarConnections.syncLeaseUntil, new Date().toISOString())),
			),
		)
		.returning({ id: calendarConnections.id })
		.get();
	return taken !== undefined;
}

/** Every event mapping of the user's connections. */
export async function eventMappingsOfUser(env: Env, userId: number): Promise<CalendarEventRow[]> {
	return db(env).select().from(calendarEvents).where(eq(calendarEvents.userId, userId)).all();
}

/** One connection's event mappings. */
export async function eventMappingsOf(env: Env, connectionId: string): Promise<CalendarEventRow[]> {
	return db(env).select().from(calendarEvents).where(eq(calendarEvents.connectionId, connectionId)).all();
}

/** Which connections plan each of the meetings (in chunks of ids D1 accepts). */
export async function plannersOf(env: Env, meetingIds: number[]): Promise<{ meetingId: number | null; connectionId: string }[]> {
	return readInIdChunks(meetingIds, (ids) =>
		db(env)
			.select({ meetingId: calendarEvents.meetingId, connectionId: calendarEvents.connectionId })
			.from(calendarEvents)
			.where(inArray(calendarEvents.meetingId, ids))
			.all(),
	);
}

export const newConnectionId = () => `cal_${crypto.randomUUID().replaceAll("-", "")}`;

export async function legacyBotName(env: Env, userId: number): Promise<string | null> {
	const row = await db(env).select().from(calendarPreferences).where(eq(calendarPreferences.userId, userId)).get();
	return row?.botName ?? null;
}

export async function saveLegacyBotName(env: Env, userId: number, botName: string): Promise<void> {
	const updatedAt = new Date().toISOString();
	await db(env)
		.insert(calendarPreferences)
		.values({ userId, botName, updatedAt })
		.onConflictDoUpdate({ target: calendarPreferences.userId, set: { botName, updatedAt } })
		.run();
}

/** A new connection's bot name: the one sent, else the legacy user-wide one, else the service default. */
export async function defaultBotName(env: Env, userId: number): Promise<string> {
	return (await legacyBotName(env, userId)) ?? DEFAULT_BOT_NAME;
}

/** The addresses that are the user, lower case: the account's email and the signed-in account (for ICS ORGANIZER). */
export async function addressesOf(env: Env, row: CalendarConnectionRow): Promise<Set<string>> {
	const user = await db(env).select({ email: users.email }).from(users).where(eq(users.id, row.userId)).get();
	return new Set([user?.email, row.account].flatMap((a) => (a ? [a.toLowerCase()] : [])));
}

/** Where the provider's next listing starts (null: a full listing). */
export async function saveSyncCursor(env: Env, connectionId: string, syncCursor: string | null): Promise<void> {
	await db(env).update(calendarConnections).set({ syncCursor }).where(eq(calendarConnections.id, connectionId)).run();
}

/** The feed address in clear, for a fetch only; never for a response, a log or an error. */
export async function feedAddress(env: Env, row: CalendarConnectionRow): Promise<string | null> {
	if (!row.icsUrlSealed) return null;
	return unseal(env.SECRETS_KEY, row.icsUrlSealed);
}

export function syncIntervalMs(env: Env): number {
	return Math.max(30, setting(env, "CALENDAR_SYNC_INTERVAL_S")) * 1000;
}

/**
 * When a connection is synced next: an interval on, give or take a tenth, so that connections
 * created or synced together drift apart instead of fetching in the same minute forever.
 * A new connection waits a random part of one interval.
 */
export function nextSyncAt(env: Env, from: Date, fresh = false): string {
	const interval = syncIntervalMs(env);
	const delay = fresh ? Math.random() * interval : interval * (0.9 + Math.random() * 0.2);
	return new Date(from.getTime() + delay).toISOString();
}

/** Sync is wired unless the deployment says otherwise; unwired sync routes answer 503. */
export function requireSyncWired(env: Env): void {
	if (!setting(env, "CALENDAR_SYNC_ENABLED")) throw new ApiError(503, "Calendar sync is not enabled on this deployment");
}
