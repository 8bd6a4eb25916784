/**
 * The webhook envelope, declared once (docs/webhooks.md#envelope): `{event_id, event_type,
 * api_version, created_at, data}`. A status event's `data` is `{meeting, status_change?}`; a live
 * event's (docs/webhooks.md#live-events) is `{meeting: {id, platform, native_meeting_id}, sequence, …}`.
 * The Worker builds them (src/webhooks/envelope.ts, src/webhooks/live-events.ts), /openapi.json
 * documents them as `WebhookEvent`, and the typed client's webhook types are generated from that.
 * Imports only zod.
 */
import { z } from "zod";
import { SegmentView } from "./segment.ts";
import { LIVE_WEBHOOK_EVENT_TYPES, MEETING_WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES } from "./webhook-event-types.ts";

export { LIVE_WEBHOOK_EVENT_TYPES, MEETING_WEBHOOK_EVENT_TYPES, WEBHOOK_EVENT_TYPES };
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** Where a status step came from, in the contract's words ("bot_callback"). */
export const TransitionSource = z.enum(["bot_callback", "user_request", "watchdog", "auto_join", "calendar_sync"]);
export type TransitionSource = z.infer<typeof TransitionSource>;

/** The meeting record as delivered (never the transcript: receivers fetch it), the keys in the contract's order. */
export const WebhookMeeting = z.object({
	id: z.number().int(),
	user_id: z.number().int(),
	platform: z.string().nullable(),
	native_meeting_id: z.string().nullable(),
	session_uid: z
		.string()
		.nullable()
		.optional()
		.describe("The live copilot's identity: `meeting_id == session_uid == native_id` (null for a plan without a link)"),
	constructed_meeting_url: z.string().nullable(),
	status: z.string(),
	completion_reason: z.string().nullable(),
	failure_stage: z.string().nullable(),
	service_provenance: z.record(z.string(), z.unknown()).optional(),
	start_time: z.string().nullable(),
	end_time: z.string().nullable(),
	data: z.record(z.string(), z.unknown()),
	created_at: z.string(),
	updated_at: z.string(),
});
export type WebhookMeeting = z.infer<typeof WebhookMeeting>;

/** One status step; `from: null` is a record just created, `to: null` a plan removed. */
export const WebhookStatusChange = z.object({
	from: z.string().nullable(),
	to: z.string().nullable(),
	/** Free text from whoever made the step (e.g. the bot's "host denied admission"); absent when empty. */
	reason: z.string().optional(),
	timestamp: z.string(),
	transition_source: TransitionSource,
});
export type WebhookStatusChange = z.infer<typeof WebhookStatusChange>;

const eventId = z.string().describe("`evt_<32 hex>`, the same for every redelivery: de-duplicate on it");

/** A status event: the meeting record, and the step that raised it. */
export const WebhookMeetingEvent = z.object({
	event_id: eventId,
	event_type: z.enum(MEETING_WEBHOOK_EVENT_TYPES),
	api_version: z.string(),
	created_at: z.string(),
	data: z.object({ meeting: WebhookMeeting, status_change: WebhookStatusChange.optional() }),
});
export type WebhookMeetingEvent = z.infer<typeof WebhookMeetingEvent>;

/** Which meeting a live event is about: its id, and its platform and native id as the meeting link named them. */
export const WebhookLiveMeeting = z.object({
	id: z.number().int(),
	platform: z.string().nullable(),
	native_meeting_id: z.string().nullable(),
});
export type WebhookLiveMeeting = z.infer<typeof WebhookLiveMeeting>;

const sequence = z
	.number()
	.int()
	.positive()
	.describe("1, 2, 3… per meeting across its live events, in the order they happened; deliveries follow it (a gap: an event given up)");

/** One confirmed segment as a live event carries it: the /ws segment, with its version. */
export const WebhookSegment = SegmentView.extend({
	language: z.string().nullable(),
	version: z
		.number()
		.int()
		.positive()
		.describe("1 for the first confirmation; a correction of a confirmed segment comes again with the next"),
	updated_at: z.string().describe("When the service stored this version"),
});
export type WebhookSegment = z.infer<typeof WebhookSegment>;

/** `transcript.segments`: the lines confirmed since the meeting's previous batch. */
export const WebhookTranscriptSegments = z.object({
	event_id: eventId,
	event_type: z.literal("transcript.segments"),
	api_version: z.string(),
	created_at: z.string(),
	data: z.object({ meeting: WebhookLiveMeeting, sequence, segments: z.array(WebhookSegment) }),
});
export type WebhookTranscriptSegments = z.infer<typeof WebhookTranscriptSegments>;

/** `participant.joined` / `participant.left`: as the bot saw it. The name is the meeting's text, as shown there. */
export const WebhookParticipantEvent = z.object({
	event_id: eventId,
	event_type: z.enum(["participant.joined", "participant.left"]),
	api_version: z.string(),
	created_at: z.string(),
	data: z.object({
		meeting: WebhookLiveMeeting,
		sequence,
		participant: z.object({ id: z.string(), name: z.string() }),
		timestamp: z.string().describe("When the bot saw the change"),
	}),
});
export type WebhookParticipantEvent = z.infer<typeof WebhookParticipantEvent>;

export const WebhookEnvelope = z.union([WebhookMeetingEvent, WebhookTranscriptSegments, WebhookParticipantEvent]);
export type WebhookEnvelope = z.infer<typeof WebhookEnvelope>;
