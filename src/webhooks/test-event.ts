/**
 * The test event an owner sends from settings (POST /user/webhook/test, docs/webhooks.md#test-event):
 * `webhook.test`, in the meeting events' envelope (`event_id`, `event_type`, `api_version`,
 * `created_at`, `data`) but about no meeting, so no filter turns it off and no outbox keeps it:
 * it goes once, now, and its answer is shown.
 */
import { WEBHOOK_API_VERSION } from "./envelope";

export const WEBHOOK_TEST_EVENT = "webhook.test";

/** A fresh test event for `userId` (a new `event_id` each time: each press is its own event). */
export function webhookTestEvent(userId: number, now: Date) {
	const id = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
	const envelope = {
		event_id: `evt_${id}`,
		event_type: WEBHOOK_TEST_EVENT,
		api_version: WEBHOOK_API_VERSION,
		created_at: now.toISOString(),
		data: { user_id: userId, message: "A test event: this endpoint receives meetbot's webhooks and can check their signature." },
	};
	return { event_id: envelope.event_id, event_type: WEBHOOK_TEST_EVENT, meeting_id: null, body: JSON.stringify(envelope) } as const;
}
