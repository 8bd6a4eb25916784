/**
 * Deleting an ended meeting (DELETE /meetings/{id} of a `completed` or `failed` meeting,
 * docs/retention.md): every object and row of it, on every store, with a receipt of what went.
 *
 * The stores that only a retry could reach again go first (the bucket, the meeting's room and
 * stream, the account's webhook outbox), the D1 record last: while any of them refuses, the
 * record stays, the answer says which store refused, and DELETE again finishes the work. Once the
 * record is gone, the search partition drops the meeting's rows; if that call fails, the search
 * log D1 keeps for the partition brings it about at the next cron tick, and the receipt says so.
 */
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { errorName } from "../error-text";
import { accountObject, liveFeed, meetingRoom, meetingStream } from "../objects";
import { forgetInPartition } from "../search/partitions";
import { deleteMeetingRows, meetingRowCounts, recordingIdsOf } from "./meeting-erasure-store";
import { deletePrefix, type MeetingObjectKind, meetingObjectPrefixes } from "./meeting-objects";
import type { MeetingStatus } from "./status-machine";
import { checkRemove } from "./status-writes";

/** What an erased Durable Object held: its storage keys and the rows of each of its tables. */
export interface ObjectStorageCount {
	keys: number;
	rows: Record<string, number>;
}

/** The receipt: per store, what went. A store that was not reached (it refused, or comes later) is null. */
export interface ErasedStores {
	/** D1: rows per table (the record, its transcript, chat, participants, recordings, media files, delivery rows…). */
	database: Record<string, number>;
	/** R2: objects per kind (`recordings`, `screenshots`, `transcript_cache`). */
	objects: Partial<Record<MeetingObjectKind, number>>;
	meeting_room: ObjectStorageCount | null;
	meeting_stream: ObjectStorageCount | null;
	/** The meeting's rows in its search partition. */
	search_index: { rows: number } | null;
	/** Webhook events of the meeting still waiting in the account's outbox, now never sent. */
	webhook_outbox: { events: number } | null;
}

export interface MeetingErasure {
	/** `deleted`: the record and everything of it is gone; `incomplete`: a store refused, the record stays, DELETE again. */
	status: "deleted" | "incomplete";
	meeting_id: number;
	removed: ErasedStores;
	/** Stores that refused this time (`objects.<kind>`, `meeting_room`, `meeting_stream`, `webhook_outbox`). */
	failed: string[];
	/** Stores whose part finishes on its own within a minute (the search partition, by the cron's catch-up). */
	pending: string[];
}

/** Runs one store's part: its count, or null with the store's name added to `failed`. */
async function part<T>(name: string, failed: string[], work: () => Promise<T>): Promise<T | null> {
	try {
		return await work();
	} catch (err) {
		console.error("meeting deletion: a store refused", name, errorName(err));
		failed.push(name);
		return null;
	}
}

/** Deletes an ended meeting everywhere (the caller owns it and saw it ended); the receipt. */
export async function eraseEndedMeeting(env: Env, row: MeetingRow): Promise<MeetingErasure> {
	checkRemove(row.status as MeetingStatus, "user");
	const failed: string[] = [];
	const pending: string[] = [];
	const recordingIds = await recordingIdsOf(env, row.id);
	const database = await meetingRowCounts(env, row.id, recordingIds);

	const objects: ErasedStores["objects"] = {};
	for (const [kind, prefix] of Object.entries(meetingObjectPrefixes(row.userId, row.id)) as [MeetingObjectKind, string][]) {
		const count = await part(`objects.${kind}`, failed, () => deletePrefix(env.RECORDINGS, prefix));
		if (count !== null) objects[kind] = count;
	}
	const meeting_stream = await part("meeting_stream", failed, () => meetingStream(env, row.id).erase());
	const room = await part("meeting_room", failed, () => meetingRoom(env, row.id).erase());
	const outbox = await part("webhook_outbox", failed, () => accountObject(env, row.userId).dropMeetingEvents(row.id));
	const removed: ErasedStores = {
		database: {},
		objects,
		meeting_room: room && { keys: room.keys, rows: room.rows },
		meeting_stream,
		search_index: null,
		webhook_outbox: outbox === null ? null : { events: outbox },
	};
	if (failed.length > 0) return { status: "incomplete", meeting_id: row.id, removed, failed, pending };

	if (await deleteMeetingRows(env, row, recordingIds)) removed.database = database;
	try {
		removed.search_index = { rows: await forgetInPartition(env, row) };
	} catch (err) {
		console.warn("meeting deletion: its search rows go at the next catch-up", row.id, errorName(err));
		pending.push("search_index");
	}
	// Whoever still watched it on /ws loses the subscription (the record is gone, so nobody may read it).
	await Promise.all(
		(room?.watchers ?? []).map((userId) =>
			liveFeed(env, userId)
				.revalidate([row.id])
				.catch((err: unknown) => console.warn("meeting deletion: a watcher's feed was not told", errorName(err))),
		),
	);
	return { status: "deleted", meeting_id: row.id, removed, failed, pending };
}
