/**
 * The webhook event types an account can filter (docs/webhooks.md#events) and the rule for one
 * the filter does not mention. Pure and zod-free, so the dashboard's form offers the same list.
 */
import { WEBHOOK_EVENT_TYPES } from "../shapes/webhook-event-types";

export { WEBHOOK_EVENT_TYPES };
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Whether an event is delivered: an explicit entry decides; otherwise only meeting.completed. */
export function webhookEventEnabled(filter: Record<string, boolean> | null, event: WebhookEventType): boolean {
	const explicit = filter?.[event];
	return explicit ?? event === "meeting.completed";
}
