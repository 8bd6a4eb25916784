import type { Env } from "../env";
import type { Segment } from "../shapes/segment";

/**
 * Raw SQL store (id lists through `json_each`, and the scope expression the triggers of
 * migrations/0016_search_partitions.sql write): what a search partition reads from D1 to catch up,
 * the scope's entries of `search_changes` and the segments and records they name. Every read keeps
 * a row only while its meeting is in the scope asked for, and a segment only while its meeting's
 * search rows are within their retention (`media_expired_at`, docs/retention.md).
 */

/** A meeting's scope, as the triggers write it. */
const SCOPE_OF = "CASE WHEN meetings.workspace_id IS NOT NULL THEN 'w:' || meetings.workspace_id ELSE 'u:' || meetings.user_id END";

/** The segment's keys a partition indexes (src/shapes/segment.ts): the compiler refuses one the segment does not have. */
const INDEXED = { text: "text", speaker: "speaker", said_at: "absolute_start_time" } as const satisfies Record<string, keyof Segment>;

const SEGMENT_SOURCE = `SELECT transcript_segments.id, transcript_segments.meeting_id,
	${Object.entries(INDEXED)
		.map(([as, key]) => `transcript_segments.${key} AS ${as}`)
		.join(", ")},
	meetings.user_id, meetings.platform, meetings.start_time
	FROM transcript_segments JOIN meetings ON meetings.id = transcript_segments.meeting_id AND meetings.media_expired_at IS NULL`;

export interface SearchChange {
	seq: number;
	meeting_id: number;
	/** A segment's rowid; 0: the meeting's record; null: the whole meeting. */
	segment_id: number | null;
}

export interface SearchMeetingRecord {
	id: number;
	user_id: number;
	platform: string;
	start_time: string | null;
}

export interface SearchSegmentSource {
	id: number;
	meeting_id: number;
	text: string;
	speaker: string;
	said_at: string | null;
	user_id: number;
	platform: string;
	start_time: string | null;
}

/** The scope's entries after `afterSeq`, in order, at most `limit`. */
export async function changesAfter(env: Env, scope: string, afterSeq: number, limit: number): Promise<SearchChange[]> {
	const { results } = await env.DB.prepare(
		"SELECT seq, meeting_id, segment_id FROM search_changes WHERE scope = ? AND seq > ? ORDER BY seq LIMIT ?",
	)
		.bind(scope, afterSeq, limit)
		.all<SearchChange>();
	return results;
}

/** Deletes the scope's entries up to `lastSeq` (the partition has applied them). */
export async function dropChanges(env: Env, scope: string, lastSeq: number): Promise<void> {
	await env.DB.prepare("DELETE FROM search_changes WHERE scope = ? AND seq <= ?").bind(scope, lastSeq).run();
}

/** Whether the scope has entries after `afterSeq`. */
export async function hasChangesAfter(env: Env, scope: string, afterSeq: number): Promise<boolean> {
	return (await env.DB.prepare("SELECT 1 FROM search_changes WHERE scope = ? AND seq > ? LIMIT 1").bind(scope, afterSeq).first()) !== null;
}

/** The named segments whose meeting is in the scope. */
export async function scopedSegments(env: Env, scope: string, segmentIds: number[]): Promise<SearchSegmentSource[]> {
	if (segmentIds.length === 0) return [];
	const { results } = await env.DB.prepare(
		`${SEGMENT_SOURCE} WHERE transcript_segments.id IN (SELECT value FROM json_each(?1)) AND ${SCOPE_OF} = ?2`,
	)
		.bind(JSON.stringify(segmentIds), scope)
		.all<SearchSegmentSource>();
	return results;
}

/** The named meetings' records, those in the scope. */
export async function scopedMeetingRecords(env: Env, scope: string, meetingIds: number[]): Promise<SearchMeetingRecord[]> {
	if (meetingIds.length === 0) return [];
	const { results } = await env.DB.prepare(
		`SELECT id, user_id, platform, start_time FROM meetings WHERE id IN (SELECT value FROM json_each(?1)) AND ${SCOPE_OF} = ?2`,
	)
		.bind(JSON.stringify(meetingIds), scope)
		.all<SearchMeetingRecord>();
	return results;
}

/** One page of a meeting's segments after `afterId`, in id order, while the meeting is in the scope. */
export async function scopedMeetingSegments(
	env: Env,
	scope: string,
	meetingId: number,
	afterId: number,
	limit: number,
): Promise<SearchSegmentSource[]> {
	const { results } = await env.DB.prepare(
		`${SEGMENT_SOURCE} WHERE transcript_segments.meeting_id = ?1 AND transcript_segments.id > ?2 AND ${SCOPE_OF} = ?3
		ORDER BY transcript_segments.id LIMIT ?4`,
	)
		.bind(meetingId, afterId, scope, limit)
		.all<SearchSegmentSource>();
	return results;
}
