import type { Env } from "../../src/env";
import {
	changesAfter,
	dropChanges,
	hasChangesAfter,
	type SearchChange,
	type SearchSegmentSource as SegmentSource,
	scopedMeetingRecords,
	scopedMeetingSegments,
	scopedSegments,
} from "../../src/search/search-changes";

/**
 * Brings a partition up to date with D1: applies its scope's entries of `search_changes`
 * (migrations/0016_search_partitions.sql) in order, then deletes them there. An entry only says
 * what to read again; every read keeps a row only while its meeting is in this scope, so an
 * entry applied late, twice or after a rebinding still leaves the partition right.
 */

const CHANGES_PAGE = 200;
const REFILL_PAGE = 500;

/** True once nothing of the scope is left to pull; false when `budget` (segments and entries) ran out first. */
export async function catchUp(env: Env, storage: DurableObjectStorage, scope: string, budget: number): Promise<boolean> {
	const sql = storage.sql;
	let spent = 0;
	while (spent < budget) {
		const refill = sql.exec<{ meeting_id: number; after_id: number }>("SELECT meeting_id, after_id FROM refills LIMIT 1").toArray()[0];
		if (refill) {
			spent += await refillPage(env, storage, scope, refill.meeting_id, refill.after_id);
			continue;
		}
		const results = await changesAfter(env, scope, lastPulled(storage), CHANGES_PAGE);
		const last = results.at(-1)?.seq;
		if (last === undefined) return true;
		await apply(env, storage, scope, results, last);
		await dropChanges(env, scope, last);
		spent += results.length;
	}
	if (sql.exec("SELECT 1 FROM refills LIMIT 1").toArray().length > 0) return false;
	return !(await hasChangesAfter(env, scope, lastPulled(storage)));
}

const lastPulled = (storage: DurableObjectStorage): number =>
	storage.sql.exec<{ seq: number }>("SELECT seq FROM pulled").toArray()[0]?.seq ?? 0;

/** One page of entries: read what they name from D1 first, then change the partition in one transaction. */
async function apply(env: Env, storage: DurableObjectStorage, scope: string, changes: SearchChange[], last: number): Promise<void> {
	const whole = changes.filter((c) => c.segment_id === null).map((c) => c.meeting_id);
	const described = changes.filter((c) => c.segment_id === 0).map((c) => c.meeting_id);
	const segmentIds = changes.flatMap((c) => (c.segment_id ? [c.segment_id] : []));
	const segments = await scopedSegments(env, scope, segmentIds);
	const records = await scopedMeetingRecords(env, scope, described);
	storage.transactionSync(() => {
		for (const meetingId of whole) {
			dropMeeting(storage, meetingId);
			storage.sql.exec("INSERT INTO refills (meeting_id, after_id) VALUES (?, 0)", meetingId);
		}
		const found = new Map(records.map((r) => [r.id, r]));
		for (const meetingId of described) {
			const record = found.get(meetingId);
			if (record)
				storage.sql.exec(
					"UPDATE meetings SET user_id = ?, platform = ?, start_time = ? WHERE id = ?",
					record.user_id,
					record.platform,
					record.start_time,
					record.id,
				);
			else dropMeeting(storage, meetingId);
		}
		const kept = new Set(segments.map((s) => s.id));
		for (const segment of segments) putSegment(storage, segment);
		for (const id of segmentIds) if (!kept.has(id)) removeSegment(storage, id);
		storage.sql.exec("INSERT INTO pulled (id, seq, scope) VALUES (1, ?1, ?2) ON CONFLICT (id) DO UPDATE SET seq = ?1", last, scope);
	});
}

/** Loads one page of a meeting being loaded whole; the number of segments read (at least 1, as budget spent). */
async function refillPage(env: Env, storage: DurableObjectStorage, scope: string, meetingId: number, afterId: number): Promise<number> {
	const results = await scopedMeetingSegments(env, scope, meetingId, afterId, REFILL_PAGE);
	storage.transactionSync(() => {
		for (const segment of results) putSegment(storage, segment);
		const last = results.at(-1)?.id;
		if (results.length < REFILL_PAGE || last === undefined) storage.sql.exec("DELETE FROM refills WHERE meeting_id = ?", meetingId);
		else storage.sql.exec("UPDATE refills SET after_id = ? WHERE meeting_id = ?", last, meetingId);
	});
	return Math.max(1, results.length);
}

function putSegment(storage: DurableObjectStorage, s: SegmentSource): void {
	const sql = storage.sql;
	sql.exec(
		`INSERT INTO meetings (id, user_id, platform, start_time) VALUES (?1, ?2, ?3, ?4)
		ON CONFLICT (id) DO UPDATE SET user_id = ?2, platform = ?3, start_time = ?4`,
		s.meeting_id,
		s.user_id,
		s.platform,
		s.start_time,
	);
	sql.exec("DELETE FROM segment_words WHERE rowid = ?", s.id);
	// The two marks the answer's snippets use become spaces, so a meeting's text can never forge or shift a highlight.
	sql.exec(
		"INSERT INTO segment_words (rowid, text, speaker) VALUES (?, replace(replace(?, char(1), ' '), char(2), ' '), ?)",
		s.id,
		s.text,
		s.speaker,
	);
	sql.exec(
		"INSERT OR REPLACE INTO segments (id, meeting_id, speaker, said_at) VALUES (?, ?, ?, ?)",
		s.id,
		s.meeting_id,
		s.speaker,
		s.said_at,
	);
}

function removeSegment(storage: DurableObjectStorage, id: number): void {
	storage.sql.exec("DELETE FROM segment_words WHERE rowid = ?", id);
	storage.sql.exec("DELETE FROM segments WHERE id = ?", id);
}

export function dropMeeting(storage: DurableObjectStorage, meetingId: number): void {
	const sql = storage.sql;
	sql.exec("DELETE FROM segment_words WHERE rowid IN (SELECT id FROM segments WHERE meeting_id = ?)", meetingId);
	sql.exec("DELETE FROM segments WHERE meeting_id = ?", meetingId);
	sql.exec("DELETE FROM meetings WHERE id = ?", meetingId);
	sql.exec("DELETE FROM refills WHERE meeting_id = ?", meetingId);
}
