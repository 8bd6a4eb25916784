/**
 * The webhook event types, once (docs/webhooks.md#events). Import-free, unlike the envelope beside it
 * (webhook.ts), so the dashboard's settings form offers the same list without bundling zod.
 */
export const WEBHOOK_EVENT_TYPES = ["meeting.started", "meeting.completed", "bot.failed", "meeting.status_change"] as const;
