/**
 * The webhook event types, once (docs/webhooks.md#events). Import-free, unlike the envelope beside it
 * (webhook.ts), so the dashboard's settings form offers the same list without bundling zod.
 */
export const WEBHOOK_EVENT_TYPES = [
	"meeting.started",
	"meeting.completed",
	"bot.failed",
	"meeting.status_change",
	"transcript.segments",
	"participant.joined",
	"participant.left",
] as const;

/** The meeting's live events (docs/webhooks.md#live-events): sequenced per meeting and delivered in that order. */
export const LIVE_WEBHOOK_EVENT_TYPES = ["transcript.segments", "participant.joined", "participant.left"] as const;

/** The status events: each carries the meeting record. */
export const MEETING_WEBHOOK_EVENT_TYPES = ["meeting.started", "meeting.completed", "bot.failed", "meeting.status_change"] as const;
