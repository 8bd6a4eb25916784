import { z } from "@hono/zod-openapi";
import { MeetingStreamEvent } from "../agent/meeting-stream-events";
import { LIVE_FRAME_COMPONENTS } from "../live/frames";
import { WebhookMeetingEvent, WebhookParticipantEvent, WebhookTranscriptSegments } from "../shapes/webhook";

/**
 * Shapes that travel outside a route's answer, registered in /openapi.json so the typed client's
 * types are generated from them as the agent's frames are: the `/ws` frames (docs/live-feed.md),
 * the meeting stream's events (docs/meeting-stream.md) and the webhook envelope (docs/webhooks.md#envelope).
 */
export const WIRE_COMPONENTS = {
	...LIVE_FRAME_COMPONENTS,
	MeetingStreamEvent,
	WebhookEvent: z
		.union([
			WebhookMeetingEvent.extend({}).openapi("WebhookMeetingEvent", { description: "A status event (docs/webhooks.md#events)" }),
			WebhookTranscriptSegments.extend({}).openapi("WebhookTranscriptSegments", {
				description: "Confirmed transcript lines, batched (docs/webhooks.md#live-events)",
			}),
			WebhookParticipantEvent.extend({}).openapi("WebhookParticipantEvent", {
				description: "A participant joined or left (docs/webhooks.md#live-events)",
			}),
		])
		.openapi("WebhookEvent", {
			description: "The body of a webhook delivery (docs/webhooks.md#envelope), signed as docs/webhooks.md#signature says",
		}),
};
