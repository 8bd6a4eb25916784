/**
 * SKELETON (h-stream): the meeting's SSE stream (docs/agent.md#meeting-stream). One log in the
 * room's SQLite storage holds every event of every merged source (transcript, the copilot's
 * notes, cards and model output, the meeting's end), so one sequence number, the SSE `id:`, is
 * an exact cursor for `Last-Event-ID`, across evictions too.
 */
import type { BotSegment } from "../src/bot-channel/protocol";

/** A transcript line as the stream carries it: `id` is the segment id (a draft and its confirmation share it). */
export interface StreamTranscript {
	type: "transcript";
	id: string;
	speaker: string;
	text: string;
	/** Seconds from the meeting's start. */
	t: number;
	/** Wall-clock milliseconds of the segment. */
	tsMs: number;
	completed: boolean;
}

/** processed-notes.v1: one note per segment (its id), upserted as the copilot refines it. */
export interface CopilotNote {
	id: string;
	text: string;
	speaker?: string;
	chapter?: string;
	t?: number;
	/** 0: the baseline note written at once; 1+: rewritten by a beat. */
	pass: number;
	frozen: boolean;
}

export interface CopilotCard {
	kind: string;
	title: string;
	body: string;
	actionable: boolean;
}

export type MeetingStreamBody =
	| StreamTranscript
	| { type: "note"; note: CopilotNote }
	| { type: "card"; card: CopilotCard; turn_id: string }
	| { type: "message-delta"; text: string; turn_id: string }
	| { type: "tool-call"; tool: string; args: unknown; callId: string; turn_id: string }
	| { type: "meeting-end"; status: string; completion_reason: string | null };

/** SKELETON (h-stream): a segment from the bot as the stream's transcript event. */
export function transcriptLine(segment: BotSegment): StreamTranscript {
	return {
		type: "transcript",
		id: segment.segment_id,
		speaker: segment.speaker,
		text: segment.text,
		t: segment.start,
		tsMs: segment.absolute_start_time ? Date.parse(segment.absolute_start_time) : Date.now(),
		completed: segment.completed,
	};
}

export interface LoggedStreamEvent {
	seq: number;
	event: MeetingStreamBody;
}

export class RoomStream {
	constructor(
		readonly sql: SqlStorage,
		readonly keepaliveMs: number,
	) {}

	/** Logs an event, then sends it to every open stream; its seq is its SSE id. */
	append(_event: MeetingStreamBody): number {
		return 0;
	}

	/** The newest seq logged (0 when none). */
	lastSeq(): number {
		throw new Error("SKELETON: RoomStream.lastSeq");
	}

	/** Logged transcript events after `seq`, oldest first (the copilot catches up from its cursor). */
	transcriptAfter(_seq: number, _limit: number): { seq: number; event: StreamTranscript }[] {
		throw new Error("SKELETON: RoomStream.transcriptAfter");
	}

	/** An SSE response: the events after `after` (or the recent ones on a fresh connect), then live. */
	open(_after: number | null): Response {
		throw new Error("SKELETON: RoomStream.open");
	}
}
