/**
 * The meeting's live webhook events (docs/webhooks.md#live-events): `transcript.segments`, a
 * batch of lines confirmed since the meeting's previous batch, and `participant.joined` /
 * `participant.left`. Each carries the meeting's `sequence` (1, 2, 3… over its live events), and
 * its `event_id` is derived from the meeting and that number, so a batch keeps its id however
 * often it is retried. The account's outbox delivers them in sequence (order key `meeting:<id>`).
 */
import type { BotSegment, BotToRoom } from "../bot-channel/protocol";
import type { Env } from "../env";
import { liveSegment } from "../meetings/transcript-store";
import { loadSettings, webhookEventEnabled } from "../settings/account-settings";
import { sha256Hex } from "../sha256";
import type { WebhookLiveMeeting, WebhookParticipantEvent, WebhookSegment, WebhookTranscriptSegments } from "../shapes/webhook";
import { LIVE_WEBHOOK_EVENT_TYPES } from "../shapes/webhook-event-types";
import type { WebhookEvent } from "./delivery-log";
import { WEBHOOK_API_VERSION } from "./envelope";

export type LiveWebhookEventType = (typeof LIVE_WEBHOOK_EVENT_TYPES)[number];
export type { WebhookLiveMeeting, WebhookSegment };

/**
 * When a meeting's open batch goes out: TRANSCRIPT_BATCH.waitMs after its first line, or at once
 * when it holds `segments` lines or `bytes` of JSON, whichever comes first (docs/webhooks.md#batching).
 */
export const TRANSCRIPT_BATCH = { waitMs: 2_000, segments: 25, bytes: 64 * 1024 } as const;

/** The order key of a meeting's live events in the account's outbox. */
export const liveOrderKey = (meetingId: number) => `meeting:${meetingId}`;

/** One confirmed segment as its batch carries it: the /ws segment, its version and when that version was stored. */
export function webhookSegment(segment: BotSegment, createdAt: string, version: number, updatedAt: string): WebhookSegment {
	return { ...liveSegment(segment, createdAt), version, updated_at: updatedAt } as WebhookSegment;
}

/**
 * What makes two confirmations of a segment the same line (a resend is not a correction): its
 * words, speaker and times.
 */
export function segmentDigest(segment: BotSegment): Promise<string> {
	const { segment_id, speaker, text, start, end, language, words } = segment;
	return sha256Hex(JSON.stringify([segment_id, speaker, text, start, end, language ?? null, words ?? null]), 12);
}

/** `evt_<32 hex>` of the meeting's live event number `sequence`. */
export async function liveEventId(meetingId: number, sequence: number): Promise<string> {
	return `evt_${await sha256Hex(["live", meetingId, sequence].join("\u0000"), 16)}`;
}

async function liveEvent(
	envelope: WebhookTranscriptSegments | WebhookParticipantEvent,
	meetingId: number,
): Promise<WebhookEvent & { event_type: LiveWebhookEventType }> {
	return {
		event_id: envelope.event_id,
		event_type: envelope.event_type,
		meeting_id: meetingId,
		body: JSON.stringify(envelope),
		order_key: liveOrderKey(meetingId),
	};
}

export async function transcriptSegmentsEvent(meeting: WebhookLiveMeeting, sequence: number, segments: WebhookSegment[], at = new Date()) {
	const envelope: WebhookTranscriptSegments = {
		event_id: await liveEventId(meeting.id, sequence),
		event_type: "transcript.segments",
		api_version: WEBHOOK_API_VERSION,
		created_at: at.toISOString(),
		data: { meeting, sequence, segments },
	};
	return liveEvent(envelope, meeting.id);
}

type ParticipantMessage = Extract<BotToRoom, { type: "participant" }>;

export async function participantEvent(meeting: WebhookLiveMeeting, sequence: number, message: ParticipantMessage, at = new Date()) {
	const envelope: WebhookParticipantEvent = {
		event_id: await liveEventId(meeting.id, sequence),
		event_type: message.event === "join" ? "participant.joined" : "participant.left",
		api_version: WEBHOOK_API_VERSION,
		created_at: at.toISOString(),
		// The name is the meeting's text: it travels as a JSON string, never read for meaning.
		data: { meeting, sequence, participant: { id: message.participant.id, name: message.participant.name }, timestamp: message.timestamp },
	};
	return liveEvent(envelope, meeting.id);
}

/**
 * The live events an account takes: those its filter enables, when it has a webhook URL (its
 * own or the deployment's). Read from D1; the room keeps the answer a little while.
 */
export async function liveEventsWanted(env: Env, userId: number): Promise<Set<LiveWebhookEventType>> {
	const settings = await loadSettings(env, userId);
	if (!settings.webhookUrl && !env.DEFAULT_WEBHOOK_URL) return new Set();
	return new Set(LIVE_WEBHOOK_EVENT_TYPES.filter((type) => webhookEventEnabled(settings.webhookEvents, type)));
}
