/**
 * Drizzle store: the one writer of a meeting's `data` keys (JSON SQL through drizzle's `sql`), and
 * its matching reader. Every writer names the top-level keys it changes; the merge rules are here:
 * - a key set to a JSON value is written with `json_set` (other keys untouched, so two writers of
 *   different keys never undo each other);
 * - a key set to `null` is removed with `json_remove`;
 * - a key set to an SQL expression takes its JSON value, or is removed when it is NULL (for values
 *   D1 computes itself, such as a plan's calendar sources).
 * - a whole new `data` (PATCH /meetings' metadata) replaces every key but `summary`, which keeps
 *   what D1 has now (`replaceMeetingData`).
 */
import { and, eq, SQL, sql } from "drizzle-orm";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { db } from "../db";
import { type MeetingRow, meetings } from "../db/schema";
import type { Env } from "../env";
import type { MeetingData } from "../shapes/meeting-data";

/**
 * Top-level keys of `data`, as the code names them (never from input), and their new values: each
 * known key typed as `meetings.data`'s shape declares it (src/shapes/meeting-data.ts), or null to
 * remove it, or an SQL expression D1 computes.
 */
export type MeetingDataPatch = { [K in keyof MeetingData]?: MeetingData[K] | null | SQL };

/** `data` (or `base`, an expression of it) with `patch` applied; undefined when the patch is empty. */
export function meetingDataPatch(patch: MeetingDataPatch, base?: SQL): SQL | undefined {
	let data = base;
	for (const [key, value] of Object.entries(patch)) {
		if (value === undefined) continue;
		if (!/^[a-z_]+$/.test(key)) throw new Error(`not a data key: ${key}`);
		const path = `$.${key}`;
		const current = data ?? sql`${meetings.data}`;
		data =
			value === null
				? sql`json_remove(${current}, ${path})`
				: value instanceof SQL
					? sql`CASE WHEN (${value}) IS NULL THEN json_remove(${current}, ${path}) ELSE json_set(${current}, ${path}, json(${value})) END`
					: sql`json_set(${current}, ${path}, json(${JSON.stringify(value)}))`;
	}
	return data;
}

export interface PatchOptions {
	/** Further conditions the record must meet for the write (its status, a key's state). */
	where?: SQL;
	/** `updated_at` to write (by default now; the writer's own clock when it reports the same instant), or false to leave it (the room's bookkeeping). */
	updatedAt?: string | false;
}

/** Applies `patch` to one meeting's `data`: the record as written, or undefined when none matched. */
export async function patchMeetingData(
	env: Env,
	meetingId: number,
	patch: MeetingDataPatch,
	options: PatchOptions = {},
): Promise<MeetingRow | undefined> {
	const data = meetingDataPatch(patch);
	if (!data) throw new Error("empty meeting data patch");
	return db(env)
		.update(meetings)
		.set({ data, ...(options.updatedAt === false ? {} : { updatedAt: options.updatedAt ?? new Date().toISOString() }) })
		.where(options.where ? and(eq(meetings.id, meetingId), options.where) : eq(meetings.id, meetingId))
		.returning()
		.get();
}

/**
 * The same write as `patchMeetingData`, with other columns of the record (`set`), as SQL text and
 * parameters for a writer that runs its statements in D1 batches (calendar sync): drizzle builds
 * it, so the merge rules are still these.
 */
export function meetingDataUpdate(
	env: Env,
	meetingId: number,
	patch: MeetingDataPatch,
	options: PatchOptions & { set?: SQLiteUpdateSetSource<typeof meetings> },
): { sql: string; params: unknown[] } {
	const data = meetingDataPatch(patch);
	return db(env)
		.update(meetings)
		.set({
			...options.set,
			...(data ? { data } : {}),
			...(options.updatedAt === false ? {} : { updatedAt: options.updatedAt ?? new Date().toISOString() }),
		})
		.where(options.where ? and(eq(meetings.id, meetingId), options.where) : eq(meetings.id, meetingId))
		.toSQL();
}

/** The condition that `data` holds `key` (any JSON value but a missing one). */
export const hasDataKey = (key: string): SQL => sql`json_type(${meetings.data}, ${`$.${key}`}) IS NOT NULL`;

/** The named top-level keys of one meeting's `data` (a missing key is absent); undefined when there is no such meeting. */
export async function readMeetingData(env: Env, meetingId: number, keys: readonly string[]): Promise<MeetingDataPatch | undefined> {
	for (const key of keys) if (!/^[a-z_]+$/.test(key)) throw new Error(`not a data key: ${key}`);
	// Each key as JSON text (json_quote keeps an object's text and quotes a string), so its type survives.
	const columns = Object.fromEntries(keys.map((key) => [key, sql<string>`json_quote(json_extract(${meetings.data}, ${`$.${key}`}))`]));
	const row = await db(env)
		.select({ id: meetings.id, ...columns })
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	if (!row) return undefined;
	const found: MeetingDataPatch = {};
	for (const key of keys) {
		const value: unknown = JSON.parse(String((row as Record<string, unknown>)[key] ?? "null"));
		if (value !== null) found[key] = value;
	}
	return found;
}

/**
 * `data` to write in place of a record's whole `data`, keeping the summary D1 has now: a summary
 * finished while the caller's copy was read is never undone, and the caller cannot write one.
 */
function dataKeepingSummary(data: MeetingDataPatch): SQL {
	const { summary: _ignored, ...rest } = data;
	const json = JSON.stringify(rest);
	return sql`CASE WHEN json_type(${meetings.data}, '$.summary') IS NULL THEN json(${json})
		ELSE json_set(json(${json}), '$.summary', json(json_extract(${meetings.data}, '$.summary'))) END`;
}

/** Replaces a meeting's whole `data` but its summary (PATCH /meetings); the record as written. */
export async function replaceMeetingData(env: Env, meetingId: number, data: MeetingDataPatch): Promise<MeetingRow | undefined> {
	return db(env)
		.update(meetings)
		.set({ data: dataKeepingSummary(data), updatedAt: new Date().toISOString() })
		.where(eq(meetings.id, meetingId))
		.returning()
		.get();
}
