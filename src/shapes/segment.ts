/**
 * The transcript segment, declared once: what the service keeps of one stretch of speech (a
 * row of `transcript_segments`, keyed by meeting and `segment_id`). Every hop takes a projection:
 * the bot channel's `BotSegment` (src/bot-channel/protocol.ts), the `/ws` `LiveSegment`
 * (src/live/frames.ts), the REST `TranscriptionSegment` (src/routes/meeting-schemas.ts), the
 * meeting stream's transcript line (src/agent/meeting-stream-events.ts), and the store's columns
 * (src/meetings/transcript-store.ts). Imports only zod: the bot host and the dashboard read it.
 */
import { z } from "zod";

/** How a segment's speaker was decided, so a guess is never presented as fact. */
export const SpeakerSource = z.enum(["caption", "active_speaker", "none"]);
export type SpeakerSource = z.infer<typeof SpeakerSource>;

export const Word = z.object({
	word: z.string(),
	start: z.number(),
	end: z.number(),
	probability: z.number().optional(),
});
export type Word = z.infer<typeof Word>;

/** Longest segment text the room takes; the bot splits a longer caption into several segments. */
export const SEGMENT_TEXT_MAX = 10_000;

/**
 * One segment. Its keys are the columns of `transcript_segments` (besides `meeting_id` and
 * `updated_at`), and in this order the views show them (`start_time`/`end_time` after `end`).
 */
export const Segment = z.object({
	segment_id: z.string().min(1).max(200),
	speaker: z.string().max(200),
	speaker_source: SpeakerSource,
	text: z.string().max(SEGMENT_TEXT_MAX),
	/** Seconds from the meeting's start. */
	start: z.number(),
	end: z.number(),
	language: z.string().nullable().optional(),
	/** False for a draft, which its confirmation (same `segment_id`) replaces. */
	completed: z.boolean(),
	confidence: z.number().min(0).max(1).optional(),
	words: z.array(Word).optional(),
	/** Where the text came from: `captions` or the engine's name (src/shapes/transcription.ts); absent on segments stored before sources were kept. */
	source: z.string().max(40).optional(),
	/** When the service first stored the segment: a draft's confirmation keeps the draft's time. */
	created_at: z.string(),
	absolute_start_time: z.string().optional(),
	absolute_end_time: z.string().optional(),
});
export type Segment = z.infer<typeof Segment>;

/** The segment's keys, in its order: the store's columns and the views are built from them. */
export const SEGMENT_KEYS = Object.keys(Segment.shape) as (keyof Segment)[];

/**
 * A segment as readers get it: both naming sets of its times (`start`/`end` and
 * `start_time`/`end_time`), as the reference's clients read one or the other.
 */
export const SegmentView = Segment.extend({ start_time: z.number(), end_time: z.number() });

type SegmentShape = typeof Segment.shape;
type SaidAsNull<S> = { [K in keyof S]: S[K] extends z.ZodOptional<infer Inner> ? z.ZodNullable<Inner> : S[K] };

/** Each key the bot may leave out, said as null instead (for a record that answers every key). */
function saidAsNull<S extends SegmentShape>(shape: S): SaidAsNull<S> {
	return Object.fromEntries(
		Object.entries(shape).map(([key, schema]) => [key, schema instanceof z.ZodOptional ? schema.unwrap().nullable() : schema]),
	) as SaidAsNull<S>;
}

/**
 * A stored segment as REST answers it: every key said, null where unknown and `words` [] where
 * none, as the reference's TranscriptionSegment; `speaker` nullable there too, though this
 * service always has one. (`/ws` leaves unknown keys out instead: src/live/frames.ts.)
 */
export const SegmentRecord = SegmentView.extend({
	...saidAsNull(Segment.shape),
	speaker: Segment.shape.speaker.nullable(),
	words: z.array(Word),
});
export type SegmentRecord = z.infer<typeof SegmentRecord>;
