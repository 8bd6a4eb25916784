/**
 * The events of a meeting's SSE stream (`GET /agent/meeting/stream`, docs/meeting-stream.md#events-and-resume),
 * declared once: the room writes them, and the dashboard and the tests read them. Types only,
 * importing nothing, so the dashboard's bundle takes no code from here.
 */

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

/**
 * A card of the copilot. One thing remembered is one card: a later beat that names it again sends
 * the card again under the same `id`, updated, and a reader replaces the card it has.
 */
export interface CopilotCard {
	/** `card-<n>`, the card's place on the meeting's board (absent in events logged before cards had ids). */
	id: string;
	kind: string;
	title: string;
	body: string;
	actionable: boolean;
}

/** How the meeting ended, as its `meeting-end` event says. */
export interface MeetingEnd {
	status: string;
	completion_reason: string | null;
}

/** An event as the stream logs it: what a resume with `Last-Event-ID` replays. */
export type MeetingStreamBody =
	| StreamTranscript
	| { type: "note"; note: CopilotNote }
	| { type: "card"; card: CopilotCard; turn_id: string }
	| { type: "message-delta"; text: string; turn_id: string }
	| { type: "tool-call"; tool: string; args: unknown; callId: string; turn_id: string }
	| ({ type: "meeting-end" } & MeetingEnd);

/** Sent to a quiet stream; never logged. Its `id:` is the last event the reader got, so a resume stays exact. */
export interface StreamPing {
	type: "ping";
}

/** The last event of a stream whose reader lost access; never logged, its `id:` is the last event the reader got. */
export interface StreamAccessEnded {
	type: "error";
	reason: "access_revoked";
	message: string;
}

/** Every event a reader of the stream can get. */
export type MeetingStreamEvent = MeetingStreamBody | StreamPing | StreamAccessEnded;
