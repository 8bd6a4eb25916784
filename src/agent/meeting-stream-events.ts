/**
 * The events of a meeting's SSE stream (`GET /agent/meeting/stream`, docs/meeting-stream.md#events-and-resume),
 * declared once as zod and registered in /openapi.json (`MeetingStreamEvent`), so the typed
 * client's event type is generated from the document. The stream writes them; the dashboard
 * reads them with `import type`, so its bundle takes no code from here.
 */
import { z } from "@hono/zod-openapi";
import { Segment } from "../shapes/segment";

/**
 * A transcript line as the stream carries it: a projection of the segment, renamed for the
 * copilot's readers (`id` is the segment id, which a draft and its confirmation share).
 */
export const StreamTranscript = Segment.pick({ speaker: true, text: true, completed: true })
	.extend({
		type: z.literal("transcript"),
		id: z.string(),
		t: z.number().openapi({ description: "Seconds from the meeting's start" }),
		tsMs: z.number().openapi({ description: "Wall-clock milliseconds of the segment" }),
	})
	.openapi("StreamTranscript");
export type StreamTranscript = z.infer<typeof StreamTranscript>;

/** processed-notes.v1: one note per segment (its id), upserted as the copilot refines it. */
export const CopilotNote = z
	.object({
		id: z.string(),
		text: z.string(),
		speaker: z.string().optional(),
		chapter: z.string().optional(),
		t: z.number().optional(),
		pass: z.number().int().openapi({ description: "0: the baseline note written at once; 1+: rewritten by a beat" }),
		frozen: z.boolean(),
	})
	.openapi("CopilotNote");
export type CopilotNote = z.infer<typeof CopilotNote>;

/**
 * A card of the copilot. One thing remembered is one card: a later beat that names it again sends
 * the card again under the same `id`, updated, and a reader replaces the card it has.
 */
export const CopilotCard = z
	.object({
		id: z
			.string()
			.openapi({ description: "`card-<n>`, the card's place on the meeting's board (absent in events logged before cards had ids)" }),
		kind: z.string(),
		title: z.string(),
		body: z.string(),
		actionable: z.boolean(),
	})
	.openapi("CopilotCard");
export type CopilotCard = z.infer<typeof CopilotCard>;

/** How the meeting ended, as its `meeting-end` event says. */
const meetingEnd = { status: z.string(), completion_reason: z.string().nullable() };
export type MeetingEnd = z.infer<z.ZodObject<typeof meetingEnd>>;

const turn = { turn_id: z.string() };

/** An event as the stream logs it: what a resume with `Last-Event-ID` replays. */
export const MeetingStreamBody = z.union([
	StreamTranscript,
	z.object({ type: z.literal("note"), note: CopilotNote }),
	z.object({ type: z.literal("card"), card: CopilotCard, ...turn }),
	z.object({ type: z.literal("message-delta"), text: z.string(), ...turn }),
	z.object({ type: z.literal("tool-call"), tool: z.string(), args: z.unknown(), callId: z.string(), ...turn }),
	z.object({ type: z.literal("meeting-end"), ...meetingEnd }),
]);
export type MeetingStreamBody = z.infer<typeof MeetingStreamBody>;

/** Sent to a quiet stream; never logged. Its `id:` is the last event the reader got, so a resume stays exact. */
export const StreamPing = z.object({ type: z.literal("ping") });
export type StreamPing = z.infer<typeof StreamPing>;

/** The last event of a stream whose reader lost access; never logged, its `id:` is the last event the reader got. */
export const StreamAccessEnded = z.object({ type: z.literal("error"), reason: z.literal("access_revoked"), message: z.string() });
export type StreamAccessEnded = z.infer<typeof StreamAccessEnded>;

/** Every event a reader of the stream can get. */
export const MeetingStreamEvent = z
	.union([...MeetingStreamBody.options, StreamPing, StreamAccessEnded])
	.openapi("MeetingStreamEvent", { description: "One event of GET /agent/meeting/stream (docs/meeting-stream.md#events-and-resume)" });
export type MeetingStreamEvent = z.infer<typeof MeetingStreamEvent>;
