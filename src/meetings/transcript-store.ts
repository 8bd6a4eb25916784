import type { BotSegment, BotToRoom, ChatMessage } from "../bot-channel/protocol";
import type { SegmentRow } from "../db/schema";
import type { Env } from "../env";
import type { LiveSegment } from "../live/feed-messages";

/**
 * Raw SQL store (a segment's upsert keeps a confirmed segment with a conditional ON CONFLICT … WHERE, and the segment counter is read from a table drizzle does not mirror).
 * Segments upsert by (meeting, segment_id): a draft is replaced by its confirmation, and a
 * draft that arrives late never overwrites a confirmed segment.
 */
const UPSERT_SQL = `INSERT INTO transcript_segments
	(meeting_id, segment_id, speaker, speaker_source, text, start, end, language, completed, confidence, words, absolute_start_time, absolute_end_time, created_at, updated_at)
	VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
	ON CONFLICT (meeting_id, segment_id) DO UPDATE SET
		speaker = excluded.speaker, speaker_source = excluded.speaker_source, text = excluded.text,
		start = excluded.start, end = excluded.end, language = excluded.language, completed = excluded.completed,
		confidence = excluded.confidence, words = excluded.words, absolute_start_time = excluded.absolute_start_time,
		absolute_end_time = excluded.absolute_end_time, updated_at = excluded.updated_at
	WHERE transcript_segments.completed = 0 OR excluded.completed = 1`;

/** `createdAt`: when the segment was first seen, kept by the first insert only (the live frames carry the same). */
export function upsertSegment(env: Env, meetingId: number, s: BotSegment, createdAt = new Date().toISOString()): D1PreparedStatement {
	return env.DB.prepare(UPSERT_SQL).bind(
		meetingId,
		s.segment_id,
		s.speaker,
		s.speaker_source,
		s.text,
		s.start,
		s.end,
		s.language ?? null,
		s.completed ? 1 : 0,
		s.confidence ?? null,
		s.words ? JSON.stringify(s.words) : null,
		s.absolute_start_time ?? null,
		s.absolute_end_time ?? null,
		createdAt,
		new Date().toISOString(),
	);
}

/** Keeps one chat line the bot saw in the meeting. */
export async function insertChatMessage(env: Env, meetingId: number, m: ChatMessage): Promise<void> {
	await env.DB.prepare("INSERT INTO chat_messages (meeting_id, sender, text, timestamp, is_from_bot) VALUES (?, ?, ?, ?, ?)")
		.bind(meetingId, m.sender, m.text, m.timestamp, m.is_from_bot ? 1 : 0)
		.run();
}

/**
 * Notes a participant's join or leave: the first join is kept, a rejoin clears the leave, and
 * the name follows the latest report.
 */
export async function upsertParticipant(env: Env, meetingId: number, message: Extract<BotToRoom, { type: "participant" }>): Promise<void> {
	const joined = message.event === "join" ? message.timestamp : null;
	const left = message.event === "leave" ? message.timestamp : null;
	await env.DB.prepare(
		`INSERT INTO meeting_participants (meeting_id, participant_id, name, joined_at, left_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (meeting_id, participant_id) DO UPDATE SET name = excluded.name,
			joined_at = coalesce(meeting_participants.joined_at, excluded.joined_at),
			left_at = CASE WHEN excluded.joined_at IS NOT NULL THEN NULL ELSE excluded.left_at END`,
	)
		.bind(meetingId, message.participant.id, message.participant.name, joined, left)
		.run();
}

/** A segment in both naming sets (start/end and start_time/end_time), as clients read it. */
export function liveSegment(s: BotSegment, createdAt: string): LiveSegment {
	return {
		segment_id: s.segment_id,
		speaker: s.speaker,
		speaker_source: s.speaker_source,
		text: s.text,
		start: s.start,
		end: s.end,
		start_time: s.start,
		end_time: s.end,
		language: s.language ?? null,
		completed: s.completed,
		...(s.confidence !== undefined ? { confidence: s.confidence } : {}),
		...(s.words ? { words: s.words } : {}),
		created_at: createdAt,
		...(s.absolute_start_time ? { absolute_start_time: s.absolute_start_time } : {}),
		...(s.absolute_end_time ? { absolute_end_time: s.absolute_end_time } : {}),
	};
}

export function segmentView(row: SegmentRow) {
	return {
		segment_id: row.segmentId,
		speaker: row.speaker,
		speaker_source: row.speakerSource,
		text: row.text,
		start: row.start,
		end: row.end,
		start_time: row.start,
		end_time: row.end,
		language: row.language,
		completed: row.completed,
		confidence: row.confidence,
		words: row.words ?? [],
		created_at: row.createdAt,
		absolute_start_time: row.absoluteStartTime,
		absolute_end_time: row.absoluteEndTime,
	};
}

/** The meeting's segment counter (migration 0018's trigger counts its writes): 0 before its first segment. */
export async function segmentVersion(env: Env, meetingId: number): Promise<number> {
	return (
		(await env.DB.prepare("SELECT version FROM transcript_versions WHERE meeting_id = ?").bind(meetingId).first<number>("version")) ?? 0
	);
}
