/**
 * The webhook envelope (docs/webhooks.md#envelope): `{event_id, event_type, api_version,
 * created_at, data}` with `data = {meeting, status_change?}`. The payload carries the meeting
 * record, never the transcript (receivers fetch it from GET /transcripts/...).
 *
 * `event_id` is derived from the logical event (meeting, event type, the status step and its
 * time), so building the same event twice gives the same id, and the outbox stores the
 * serialized body once, so every redelivery sends the same bytes.
 */

import type { Actor, MeetingState, MeetingStatus } from "../meetings/status-machine";
import type { WebhookEventType } from "../settings/account-settings";
import { sha256Hex } from "../sha256";
import type { TransitionSource, WebhookMeeting, WebhookMeetingEvent, WebhookStatusChange } from "../shapes/webhook";

export type { WebhookEventType };
/** The status events: each carries the meeting record (the live events are live-events.ts's). */
export type MeetingWebhookEventType = WebhookMeetingEvent["event_type"];

export const WEBHOOK_API_VERSION = "2026-03-01";

/** The meeting record as delivered: the keys docs/webhooks.md#envelope lists, in its order (src/shapes/webhook.ts). */
export type { TransitionSource, WebhookMeeting };

export const TRANSITION_SOURCE: Record<Actor, TransitionSource> = {
	bot: "bot_callback",
	user: "user_request",
	system: "watchdog",
	scheduler: "auto_join",
	calendar: "calendar_sync",
};

/**
 * One step as the Worker makes it: the shape's `from`/`to` narrowed to the status machine's words,
 * and a `reason` that may be null (the envelope leaves an empty one out).
 */
export type StatusChange = Omit<WebhookStatusChange, "from" | "to" | "reason"> & {
	from: MeetingStatus | null;
	to: MeetingStatus | null;
	reason?: string | null;
};

/** The envelope (src/shapes/webhook.ts) as the Worker builds it, its status step in the status machine's words. */
export type WebhookEnvelope = Omit<WebhookMeetingEvent, "data"> & { data: { meeting: WebhookMeeting; status_change?: StatusChange } };

export interface EnvelopeInput {
	event_type: MeetingWebhookEventType;
	/** The meeting record; only the contract's keys are copied, so nothing else can leak in. */
	meeting: WebhookMeeting;
	status_change?: StatusChange;
	/** When the envelope is built; defaults to now. */
	created_at?: Date;
	/** Overrides the derived id (for an event already identified elsewhere). */
	event_id?: string;
}

export async function buildEnvelope(input: EnvelopeInput): Promise<WebhookEnvelope> {
	const m = input.meeting;
	// Built key by key in the contract's order: no transcript, no extra field, stable JSON.
	const meeting: WebhookMeeting = {
		id: m.id,
		user_id: m.user_id,
		platform: m.platform,
		native_meeting_id: m.native_meeting_id,
		...(m.session_uid !== undefined ? { session_uid: m.session_uid } : {}),
		constructed_meeting_url: m.constructed_meeting_url,
		status: m.status,
		completion_reason: m.completion_reason,
		failure_stage: m.failure_stage,
		...(m.service_provenance ? { service_provenance: m.service_provenance } : {}),
		start_time: m.start_time,
		end_time: m.end_time,
		data: m.data,
		created_at: m.created_at,
		updated_at: m.updated_at,
	};
	const change = input.status_change;
	return {
		event_id: input.event_id ?? (await webhookEventId(input.event_type, m, change)),
		event_type: input.event_type,
		api_version: WEBHOOK_API_VERSION,
		created_at: (input.created_at ?? new Date()).toISOString(),
		data: change
			? {
					meeting,
					status_change: {
						from: change.from,
						to: change.to,
						...(change.reason ? { reason: change.reason } : {}),
						timestamp: change.timestamp,
						transition_source: change.transition_source,
					},
				}
			: { meeting },
	};
}

/** `evt_<32 hex>`: a digest of what makes the event one logical event. */
export async function webhookEventId(
	eventType: MeetingWebhookEventType,
	meeting: Pick<WebhookMeeting, "id" | "status" | "updated_at">,
	change?: Pick<StatusChange, "from" | "to" | "timestamp">,
): Promise<string> {
	const identity = change
		? [eventType, meeting.id, change.from ?? "", change.to ?? "", change.timestamp]
		: [eventType, meeting.id, "", meeting.status, meeting.updated_at];
	return `evt_${await sha256Hex(identity.join("\u0000"), 16)}`;
}

/**
 * The events one status step raises: `meeting.status_change` for every step (a plan's creation,
 * edit, removal and auto-join error included: `note`), plus `meeting.started` the first time the
 * bot is in, `meeting.completed` when it ends completed and `bot.failed` when it ends failed (a
 * failed meeting does not also raise meeting.completed).
 */
export function webhookEventsFor(
	before: { status: MeetingStatus | null; reached_stage: MeetingState["reached_stage"] },
	after: MeetingStatus | null,
	note = false,
): MeetingWebhookEventType[] {
	if (before.status === after && !note) return [];
	const events: MeetingWebhookEventType[] = [];
	if (after === "active" && before.reached_stage !== "active") events.push("meeting.started");
	if (after === "completed") events.push("meeting.completed");
	if (after === "failed") events.push("bot.failed");
	events.push("meeting.status_change");
	return events;
}
