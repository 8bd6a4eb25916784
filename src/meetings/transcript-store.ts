/**
 * Raw SQL store (a segment's upsert keeps a confirmed segment with a conditional ON CONFLICT … WHERE, and the segment counter is read from a table drizzle does not mirror).
 * Segments upsert by (meeting, segment_id): a draft is replaced by its confirmation, and a
 * draft that arrives late never overwrites a confirmed segment. Built from the shape's keys, so
 * a new segment field is written without an edit here.
 */
import { getTableColumns } from "drizzle-orm";
import type { BotSegment, BotToRoom, ChatMessage } from "../bot-channel/protocol";
import { type SegmentRow, transcriptSegments } from "../db/schema";
import type { Env } from "../env";
import type { LiveSegment } from "../live/feed-messages";
import { SEGMENT_KEYS, Segment, type SegmentRecord } from "../shapes/segment";

/** The columns of `transcript_segments`: the meeting, the segment's keys (src/shapes/segment.ts), and the last write. */
export const SEGMENT_COLUMNS = ["meeting_id", ...SEGMENT_KEYS, "updated_at"] as const;
/** Kept from the first insert: the row's key, and when the service first saw the segment. */
const KEPT_ON_UPDATE: ReadonlySet<string> = new Set(["meeting_id", "segment_id", "created_at"]);

const UPSERT_SQL = `INSERT INTO transcript_segments (${SEGMENT_COLUMNS.join(", ")})
	VALUES (${SEGMENT_COLUMNS.map((_, i) => `?${i + 1}`).join(", ")})
	ON CONFLICT (meeting_id, segment_id) DO UPDATE SET
		${SEGMENT_COLUMNS.filter((c) => !KEPT_ON_UPDATE.has(c))
			.map((c) => `${c} = excluded.${c}`)
			.join(", ")}
	WHERE transcript_segments.completed = 0 OR excluded.completed = 1`;

/** A value as its column keeps it: booleans as 0/1, lists as JSON, an absent value as NULL. */
function columnValue(value: unknown): string | number | null {
	if (value === undefined || value === null) return null;
	if (typeof value === "boolean") return value ? 1 : 0;
	if (typeof value === "object") return JSON.stringify(value);
	return value as string | number;
}

/** `createdAt`: when the segment was first seen, kept by the first insert only (the live frames carry the same). */
export function upsertSegment(env: Env, meetingId: number, s: BotSegment, createdAt = new Date().toISOString()): D1PreparedStatement {
	const stored: Segment = { ...s, created_at: createdAt };
	return env.DB.prepare(UPSERT_SQL).bind(meetingId, ...SEGMENT_KEYS.map((key) => columnValue(stored[key])), new Date().toISOString());
}

/** Keeps one chat line the bot saw in the meeting. */
export async function insertChatMessage(env: Env, meetingId: number, m: ChatMessage): Promise<void> {
	await env.DB.prepare("INSERT INTO chat_messages (meeting_id, sender, text, timestamp, is_from_bot) VALUES (?, ?, ?, ?, ?)")
		.bind(meetingId, m.sender, m.text, m.timestamp, m.is_from_bot ? 1 : 0)
		.run();
}

/**
 * A join opens a stay unless one is open; a leave closes the open one, or, when the bot saw no
 * join (the person was there before it), keeps a stay with only its end. Each is a no-op when
 * the same report comes again (its time is already kept), so a retried report adds nothing.
 */
const STAY_SQL = {
	join: `INSERT INTO participant_intervals (meeting_id, participant_id, joined_at, left_at) SELECT ?1, ?2, ?3, NULL
		WHERE NOT EXISTS (SELECT 1 FROM participant_intervals WHERE meeting_id = ?1 AND participant_id = ?2 AND (left_at IS NULL OR joined_at = ?3))`,
	leave: [
		"UPDATE participant_intervals SET left_at = ?3 WHERE meeting_id = ?1 AND participant_id = ?2 AND left_at IS NULL",
		`INSERT INTO participant_intervals (meeting_id, participant_id, joined_at, left_at) SELECT ?1, ?2, NULL, ?3
		WHERE NOT EXISTS (SELECT 1 FROM participant_intervals WHERE meeting_id = ?1 AND participant_id = ?2 AND left_at = ?3)`,
	],
} as const;

/**
 * Notes a participant's join or leave: on the person (the first join is kept, a rejoin clears
 * the leave, and the name follows the latest report) and on their stays (participant_intervals).
 */
export async function upsertParticipant(env: Env, meetingId: number, message: Extract<BotToRoom, { type: "participant" }>): Promise<void> {
	const joined = message.event === "join" ? message.timestamp : null;
	const left = message.event === "leave" ? message.timestamp : null;
	const person = env.DB.prepare(
		`INSERT INTO meeting_participants (meeting_id, participant_id, name, joined_at, left_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (meeting_id, participant_id) DO UPDATE SET name = excluded.name,
			joined_at = coalesce(meeting_participants.joined_at, excluded.joined_at),
			left_at = CASE WHEN excluded.joined_at IS NOT NULL THEN NULL ELSE excluded.left_at END`,
	).bind(meetingId, message.participant.id, message.participant.name, joined, left);
	const stay = message.event === "join" ? [STAY_SQL.join] : STAY_SQL.leave;
	await env.DB.batch([person, ...stay.map((sql) => env.DB.prepare(sql).bind(meetingId, message.participant.id, message.timestamp))]);
}

/** Each stored key's drizzle property (`segment_id` → `segmentId`). */
const PROPERTY_OF = Object.fromEntries(
	Object.entries(getTableColumns(transcriptSegments)).map(([property, column]) => [column.name, property]),
) as Record<keyof Segment, keyof SegmentRow>;

/** The keys a bot may leave out, read from the shape once rather than per segment (every live segment passes here). */
const OPTIONAL_KEYS: ReadonlySet<keyof Segment> = new Set(SEGMENT_KEYS.filter((key) => Segment.shape[key].isOptional()));

/** The segment's keys in its order, both naming sets of its times after `end`, each key's value as `shown` gives it. */
function view(shown: (key: keyof Segment) => unknown, start: number, end: number): Record<string, unknown> {
	const out: Record<string, unknown> = {};
	for (const key of SEGMENT_KEYS) {
		const value = shown(key);
		if (value !== undefined) out[key] = value;
		if (key === "end") Object.assign(out, { start_time: start, end_time: end });
	}
	return out;
}

/**
 * A segment as /ws carries it (`LiveSegment`): `language` always said, null when unknown; a key
 * the bot left out or sent empty is left out.
 */
export function liveSegment(s: BotSegment, createdAt: string): LiveSegment {
	const stored: Segment = { ...s, created_at: createdAt };
	const shown = (key: keyof Segment) => {
		if (key === "language") return s.language ?? null;
		const value = stored[key];
		return OPTIONAL_KEYS.has(key) && value === "" ? undefined : value;
	};
	return view(shown, s.start, s.end) as LiveSegment;
}

/** A stored segment as REST answers it (`SegmentRecord`): every key said, null where unknown, `words` [] where none. */
export function segmentView(row: SegmentRow): SegmentRecord {
	const shown = (key: keyof Segment) => (key === "words" ? (row.words ?? []) : (row[PROPERTY_OF[key]] ?? null));
	return view(shown, row.start, row.end) as SegmentRecord;
}

/** The meeting's segment counter (migration 0018's trigger counts its writes): 0 before its first segment. */
export async function segmentVersion(env: Env, meetingId: number): Promise<number> {
	return (
		(await env.DB.prepare("SELECT version FROM transcript_versions WHERE meeting_id = ?").bind(meetingId).first<number>("version")) ?? 0
	);
}
