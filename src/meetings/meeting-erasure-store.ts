/**
 * Raw SQL store (sqlite_master introspection, and one D1 batch across tables drizzle does not mirror):
 * the rows a meeting leaves in D1 (docs/retention.md), counted and deleted. Every table with a
 * `meeting_id` column holds rows of it, every table with a `recording_id` column rows of its
 * recordings, and every table with a `media_file_id` column (a streamed file's parts) rows of
 * their files; so a table added later is counted and deleted without this file knowing it.
 */
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { recordingRowDeletes } from "../recordings/recording-store";

/**
 * Tables with a `meeting_id` that are not the meeting's rows: the search log, which the meeting's
 * partition reads and empties (src/search/partitions.ts), and a calendar's event, which outlives
 * the meeting it planned (its `meeting_id` is set to NULL by its foreign key).
 */
const NOT_THE_MEETINGS = new Set(["search_changes", "calendar_events"]);

interface KeyedTables {
	byMeeting: string[];
	byRecording: string[];
	byMediaFile: string[];
}

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables keyed by a meeting or a recording id, read from the schema as it is now. */
async function keyedTables(env: Env): Promise<KeyedTables> {
	const { results } = await env.DB.prepare(
		// D1's own tables (`_cf_*`, `d1_*`) and SQLite's are not the service's, and D1 refuses to describe some of them.
		`SELECT m.name AS name, p.name AS column FROM sqlite_master m, pragma_table_info(m.name) p
		WHERE m.type = 'table' AND m.name NOT GLOB 'sqlite_*' AND m.name NOT GLOB '_cf_*' AND m.name NOT GLOB 'd1_*'
			AND p.name IN ('meeting_id', 'recording_id', 'media_file_id') ORDER BY m.name`,
	).all<{ name: string; column: string }>();
	const byMeeting = results.filter((r) => r.column === "meeting_id" && !NOT_THE_MEETINGS.has(r.name)).map((r) => r.name);
	const byRecording = results.filter((r) => r.column === "recording_id").map((r) => r.name);
	const byMediaFile = results.filter((r) => r.column === "media_file_id").map((r) => r.name);
	return { byMeeting, byRecording, byMediaFile };
}

/** Counting statements for the rows of some recordings: each table keyed by a recording id, and by one of their media files. */
function recordingCounting(env: Env, tables: KeyedTables, recordingIds: number[]) {
	const ids = JSON.stringify(recordingIds);
	return [
		...tables.byRecording.map((table) => ({
			table,
			statement: env.DB.prepare(
				`SELECT count(*) AS n FROM ${quoted(table)} WHERE ${table === "recordings" ? "id" : "recording_id"} IN (SELECT value FROM json_each(?))`,
			).bind(ids),
		})),
		...tables.byMediaFile.map((table) => ({
			table,
			statement: env.DB.prepare(
				`SELECT count(*) AS n FROM ${quoted(table)} WHERE media_file_id IN (SELECT id FROM media_files WHERE recording_id IN (SELECT value FROM json_each(?)))`,
			).bind(ids),
		})),
	];
}

/** The ids of a meeting's recordings. */
export async function recordingIdsOf(env: Env, meetingId: number): Promise<number[]> {
	const { results } = await env.DB.prepare("SELECT id FROM recordings WHERE meeting_id = ? ORDER BY id")
		.bind(meetingId)
		.all<{ id: number }>();
	return results.map((r) => r.id);
}

/** Rows per table of some recordings (the recordings, each table keyed by a recording id or by one of their media files); tables without any are left out. */
export async function recordingRowCounts(env: Env, recordingIds: number[]): Promise<Record<string, number>> {
	const tables = await keyedTables(env);
	return countsOf(env, recordingCounting(env, { ...tables, byRecording: ["recordings", ...tables.byRecording] }, recordingIds));
}

async function countsOf(env: Env, counted: { table: string; statement: D1PreparedStatement }[]): Promise<Record<string, number>> {
	const results = await env.DB.batch<{ n: number }>(counted.map((c) => c.statement));
	const counts: Record<string, number> = {};
	counted.forEach(({ table }, i) => {
		const n = results[i]?.results[0]?.n ?? 0;
		if (n > 0) counts[table] = (counts[table] ?? 0) + n;
	});
	return counts;
}

/** Rows per table that belong to the meeting (the record, and each table keyed by it or by its recordings); tables without any are left out. */
export async function meetingRowCounts(env: Env, meetingId: number, recordingIds: number[]): Promise<Record<string, number>> {
	const tables = await keyedTables(env);
	const counted = [
		{ table: "meetings", statement: env.DB.prepare("SELECT count(*) AS n FROM meetings WHERE id = ?").bind(meetingId) },
		...tables.byMeeting.map((table) => ({
			table,
			statement: env.DB.prepare(`SELECT count(*) AS n FROM ${quoted(table)} WHERE meeting_id = ?`).bind(meetingId),
		})),
		...recordingCounting(env, tables, recordingIds),
	];
	return countsOf(env, counted);
}

/**
 * Deletes an ended meeting's rows in one batch: its recordings' rows (through their one place),
 * the record (its foreign keys take the transcript, chat, participants, shares and the rest), then
 * whatever a table without such a key still holds of it (webhook delivery rows). False when the
 * record was not there, or no longer ended and owned as `row` says.
 */
export async function deleteMeetingRows(env: Env, row: MeetingRow, recordingIds: number[]): Promise<boolean> {
	const tables = await keyedTables(env);
	const statement = ({ sql, params }: { sql: string; params: unknown[] }) => env.DB.prepare(sql).bind(...params);
	const recordingRows = recordingIds.length > 0 ? recordingRowDeletes(env, recordingIds).map((q) => statement(q.toSQL())) : [];
	const results = await env.DB.batch([
		...recordingRows,
		env.DB.prepare("DELETE FROM meetings WHERE id = ? AND user_id = ? AND status IN ('completed', 'failed')").bind(row.id, row.userId),
		...tables.byMeeting
			.filter((table) => table !== "recordings")
			.map((table) => env.DB.prepare(`DELETE FROM ${quoted(table)} WHERE meeting_id = ?`).bind(row.id)),
	]);
	return (results[recordingRows.length]?.meta.changes ?? 0) > 0;
}
