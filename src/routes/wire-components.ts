import { MeetingStreamEvent } from "../agent/meeting-stream-events";
import { LIVE_FRAME_COMPONENTS } from "../live/frames";
import { WebhookEnvelope } from "../shapes/webhook";

/**
 * Shapes that travel outside a route's answer, registered in /openapi.json so the typed client's
 * types are generated from them as the agent's frames are: the `/ws` frames (docs/live-feed.md),
 * the meeting stream's events (docs/meeting-stream.md) and the webhook envelope (docs/webhooks.md#envelope).
 */
export const WIRE_COMPONENTS = {
	...LIVE_FRAME_COMPONENTS,
	MeetingStreamEvent,
	WebhookEvent: WebhookEnvelope.extend({}).openapi("WebhookEvent", {
		description: "The body of a webhook delivery (docs/webhooks.md#envelope), signed as docs/webhooks.md#signature says",
	}),
};
