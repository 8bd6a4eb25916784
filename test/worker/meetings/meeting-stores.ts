/**
 * Everything of one meeting on every store, listed the way a stranger to the code would look
 * (docs/retention.md#what-a-meeting-leaves-where): every D1 table read from `sqlite_master`, rows
 * found by a meeting, recording or media file id column or by a word only this meeting said; the whole
 * bucket; each Durable Object's storage (its keys, and rows per SQL table).
 */
import { env, runInDurableObject } from "cloudflare:test";
import type { AccountObject } from "../../../durable-objects/account";
import type { LiveFeed } from "../../../durable-objects/live-feed";
import { LIVE_FEED_STORAGE } from "../../../durable-objects/live-feed/storage";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import type { MeetingStream } from "../../../durable-objects/meeting-stream";
import type { TranscriptIndex } from "../../../durable-objects/transcript-index";
import { partitionOf } from "../search/search-helpers";
import { accountOf, roomOf, streamOf } from "../support";

export interface MeetingRef {
	id: number;
	userId: number;
	/** The search scope: `u:<user>` or `w:<workspace>`. */
	scope: string;
	/** A word said only in this meeting (its transcript, its chat, its title). */
	marker: string;
}

/** An object's own storage: keys, and rows per SQL table (runtime and SQLite tables left out). */
export interface ObjectStorage {
	keys: string[];
	rows: Record<string, number>;
}

export interface MeetingStores {
	/** D1 rows per table that name the meeting or its recordings by id, or hold its marker word. */
	database: Record<string, number>;
	/** Every key in the bucket under a path of the meeting. */
	objects: string[];
	room: ObjectStorage;
	stream: ObjectStorage;
	/** The meeting in its search partition: its segments, the words of its marker, its record. */
	search: { segments: number; words: number; meetings: number };
	/** Webhook events of the meeting waiting in its owner's outbox. */
	outbox: number;
	/** Entries of the owner's LiveFeed that name the meeting: a socket's subscription to it, an open meeting stream. */
	feed: number;
}

const liveFeedOf = (userId: number) => env.LIVE_FEED.get(env.LIVE_FEED.idFromName(String(userId)));

const quoted = (name: string) => `"${name.replace(/"/g, '""')}"`;

async function d1Rows(meeting: MeetingRef): Promise<Record<string, number>> {
	const { results: tables } = await env.DB.prepare(
		"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%'",
	).all<{ name: string }>();
	const { results: recordings } = await env.DB.prepare("SELECT id FROM recordings WHERE meeting_id = ?")
		.bind(meeting.id)
		.all<{ id: number }>();
	const recordingIds = recordings.map((r) => r.id);
	const found: Record<string, number> = {};
	for (const { name } of tables) {
		const { results: columns } = await env.DB.prepare(`SELECT name, type FROM pragma_table_info(?)`)
			.bind(name)
			.all<{ name: string; type: string }>();
		const conditions: string[] = [];
		const params: unknown[] = [];
		for (const column of columns) {
			if (column.name === "meeting_id" || (name === "meetings" && column.name === "id")) {
				conditions.push(`${quoted(column.name)} = ?`);
				params.push(meeting.id);
			} else if (column.name === "recording_id" || (name === "recordings" && column.name === "id")) {
				conditions.push(`${quoted(column.name)} IN (SELECT value FROM json_each(?))`);
				params.push(JSON.stringify(recordingIds));
			} else if (column.name === "media_file_id") {
				conditions.push(`${quoted(column.name)} IN (SELECT id FROM media_files WHERE recording_id IN (SELECT value FROM json_each(?)))`);
				params.push(JSON.stringify(recordingIds));
			} else if (/TEXT/i.test(column.type) || column.type === "") {
				conditions.push(`CAST(${quoted(column.name)} AS TEXT) LIKE ?`);
				params.push(`%${meeting.marker}%`);
			}
		}
		if (conditions.length === 0) continue;
		const n = await env.DB.prepare(`SELECT count(*) AS n FROM ${quoted(name)} WHERE ${conditions.join(" OR ")}`)
			.bind(...params)
			.first<number>("n");
		if (n) found[name] = n;
	}
	return found;
}

/** The whole bucket, page by page: the keys that lie under a path of this meeting. */
async function bucketKeys(meeting: MeetingRef): Promise<string[]> {
	const keys: string[] = [];
	let cursor: string | undefined;
	do {
		const page = await env.RECORDINGS.list({ cursor, limit: 1000 });
		keys.push(...page.objects.map((o) => o.key));
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	const mine = [`/${meeting.userId}/${meeting.id}/`, `transcript-cache/${meeting.id}/`];
	return keys.filter((key) => mine.some((part) => key.includes(part)) || key.includes(meeting.marker)).sort();
}

function objectStorage(stub: DurableObjectStub<MeetingRoom> | DurableObjectStub<MeetingStream>): Promise<ObjectStorage> {
	return runInDurableObject(stub, async (_object: MeetingRoom | MeetingStream, state) => {
		const rows: Record<string, number> = {};
		const tables = state.storage.sql
			.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
			.toArray()
			.map((t) => t.name)
			.filter((name) => !name.startsWith("sqlite_") && !name.startsWith("_cf_"));
		for (const table of tables) {
			const n = state.storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${quoted(table)}`).one().n;
			if (n > 0) rows[table] = n;
		}
		return { keys: [...(await state.storage.list()).keys()].sort(), rows };
	});
}

const partitionRowsOf = (meeting: MeetingRef) =>
	runInDurableObject(partitionOf(meeting.scope), async (_index: TranscriptIndex, state) => {
		const segments = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM segments WHERE meeting_id = ?", meeting.id).one().n;
		const words = state.storage.sql
			.exec<{ n: number }>("SELECT count(*) AS n FROM segment_words WHERE segment_words MATCH ?", `"${meeting.marker}"`)
			.one().n;
		const records = state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM meetings WHERE id = ?", meeting.id).one().n;
		return { segments, words, meetings: records };
	});

const outboxOf = (meeting: MeetingRef) =>
	runInDurableObject(accountOf(meeting.userId), async (_account: AccountObject, state) => {
		const table = state.storage.sql.exec("SELECT 1 FROM sqlite_master WHERE name = 'webhook_outbox'").toArray();
		if (table.length === 0) return 0;
		return state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM webhook_outbox WHERE meeting_id = ?", meeting.id).one().n;
	});

const feedEntriesOf = (meeting: MeetingRef) =>
	runInDurableObject(liveFeedOf(meeting.userId), async (_feed: LiveFeed, state) => {
		let entries = 0;
		for (const [key, value] of await state.storage.list()) {
			if (key.startsWith(LIVE_FEED_STORAGE.keys.subscriptionsPrefix) && String(meeting.id) in (value as Record<string, unknown>))
				entries += 1;
			if (key === LIVE_FEED_STORAGE.keys.streams && (value as { meetingIds: number[] }).meetingIds.includes(meeting.id)) entries += 1;
		}
		return entries;
	});

/** Every store, as it holds the meeting now. */
export async function storesOf(meeting: MeetingRef): Promise<MeetingStores> {
	return {
		database: await d1Rows(meeting),
		objects: await bucketKeys(meeting),
		room: await objectStorage(roomOf(meeting.id)),
		stream: await objectStorage(streamOf(meeting.id)),
		search: await partitionRowsOf(meeting),
		outbox: await outboxOf(meeting),
		feed: await feedEntriesOf(meeting),
	};
}

/** What "nothing of it left" looks like. */
export const NOTHING: MeetingStores = {
	database: {},
	objects: [],
	room: { keys: [], rows: {} },
	stream: { keys: [], rows: {} },
	search: { segments: 0, words: 0, meetings: 0 },
	outbox: 0,
	feed: 0,
};
