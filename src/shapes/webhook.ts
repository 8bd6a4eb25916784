/**
 * The webhook envelope, declared once (docs/webhooks.md#envelope): `{event_id, event_type,
 * api_version, created_at, data}` with `data = {meeting, status_change?}`. The Worker builds it
 * (src/webhooks/envelope.ts), /openapi.json documents it as `WebhookEvent`, and the typed client's
 * webhook types are generated from that. Imports only zod.
 */
import { z } from "zod";
import { WEBHOOK_EVENT_TYPES } from "./webhook-event-types.ts";

export { WEBHOOK_EVENT_TYPES };
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

export const WebhookEnvelope = z.object({
	event_id: z.string().describe("`evt_<32 hex>`, the same for every redelivery: de-duplicate on it"),
	event_type: WebhookEventType,
	api_version: z.string(),
	created_at: z.string(),
	data: z.object({ meeting: WebhookMeeting, status_change: WebhookStatusChange.optional() }),
});
export type WebhookEnvelope = z.infer<typeof WebhookEnvelope>;
