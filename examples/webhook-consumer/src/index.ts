/**
 * Receives meetbot webhooks (docs/webhooks.md): verifies each delivery with `verifyWebhook`
 * (401 on a bad signature or a timestamp outside the replay window), and on `meeting.completed`
 * fetches the meeting's transcript with the typed client and stores it in KV. Deliveries are at
 * least once, so each event id is handled once: a redelivery is answered 200 without a second fetch.
 *
 * The live events (docs/webhooks.md#live-events) build the meeting's transcript as it is spoken,
 * under `live:<meeting id>`: each line kept once by `segment_id`, replaced only by a higher
 * `version`, in the order first heard, and who joined and left, in the meeting's `sequence`.
 */
import {
	createClient,
	MeetbotApiError,
	type Platform,
	type Transcript,
	verifyWebhook,
	type WebhookEvent,
	type WebhookMeetingEvent,
	type WebhookParticipantEvent,
	type WebhookSegment,
	type WebhookTranscriptSegments,
	WebhookVerificationError,
} from "@meetbot/client";

export interface Env {
	/** The gateway's origin. */
	MEETBOT_URL: string;
	/** A key with the `tx` (or `bot`) scope of the account whose webhooks arrive here. */
	MEETBOT_API_KEY: string;
	/** The account's `webhook_secret` (PUT /user/webhook). */
	WEBHOOK_SECRET: string;
	TRANSCRIPTS: KVNamespace;
}

/** What is kept for each completed meeting, under `transcript:<meeting id>`. */
export interface StoredTranscript {
	event_id: string;
	meeting_id: number;
	platform: string;
	native_meeting_id: string;
	stored_at: string;
	transcript: Transcript;
}

/** A meeting as its live events built it, under `live:<meeting id>`. */
export interface LiveMeeting {
	meeting_id: number;
	/** The highest `sequence` applied: a live event at or below it was applied already. */
	last_sequence: number;
	/** One entry per segment id, in the order first heard; a correction replaces its line in place. */
	lines: Pick<WebhookSegment, "segment_id" | "version" | "updated_at" | "speaker" | "text" | "start" | "end">[];
	participants: { event: "joined" | "left"; id: string; name: string; timestamp: string }[];
}

/** How long a handled event id is remembered: longer than the sender's 24 h of retries. */
const EVENT_MEMORY_SECONDS = 7 * 24 * 3600;

export const transcriptKey = (meetingId: number) => `transcript:${meetingId}`;
export const eventKey = (eventId: string) => `event:${eventId}`;
export const liveKey = (meetingId: number) => `live:${meetingId}`;

const reply = (status: number, body: Record<string, unknown>) => Response.json(body, { status });

export default {
	async fetch(request: Request, env: Env): Promise<Response> {
		if (request.method !== "POST") return reply(405, { detail: "Method Not Allowed" });
		let event: WebhookEvent;
		try {
			event = await verifyWebhook(request, env.WEBHOOK_SECRET, { toleranceSeconds: 300 });
		} catch (err) {
			if (err instanceof WebhookVerificationError) return reply(401, { detail: err.reason });
			throw err;
		}
		if (await env.TRANSCRIPTS.get(eventKey(event.event_id))) return reply(200, { status: "duplicate", event_id: event.event_id });

		let outcome = "ignored";
		if (event.event_type === "meeting.completed") {
			const response = await storeTranscript(event, env);
			if (response) return response;
			outcome = "stored";
		} else if (
			event.event_type === "transcript.segments" ||
			event.event_type === "participant.joined" ||
			event.event_type === "participant.left"
		) {
			outcome = await applyLive(event, env);
		}
		await env.TRANSCRIPTS.put(eventKey(event.event_id), outcome, { expirationTtl: EVENT_MEMORY_SECONDS });
		return reply(200, { status: outcome, event_id: event.event_id });
	},
} satisfies ExportedHandler<Env>;

/** Fetches and stores the transcript; a Response when the delivery should end otherwise. */
async function storeTranscript(event: WebhookMeetingEvent, env: Env): Promise<Response | undefined> {
	const { meeting } = event.data;
	if (!meeting.platform || !meeting.native_meeting_id) return reply(200, { status: "no_link", event_id: event.event_id });
	const client = createClient({ baseUrl: env.MEETBOT_URL, apiKey: env.MEETBOT_API_KEY });
	let transcript: Transcript;
	try {
		transcript = await client.transcripts.get(meeting.platform as Platform, meeting.native_meeting_id);
	} catch (err) {
		// A 5xx makes the sender retry later (docs/webhooks.md#delivery-and-retries); a 4xx would not.
		const status = err instanceof MeetbotApiError ? err.status : 0;
		console.warn("transcript fetch failed", event.event_id, status);
		return reply(503, { detail: `transcript not available yet (${status || "network"})` });
	}
	const stored: StoredTranscript = {
		event_id: event.event_id,
		meeting_id: meeting.id,
		platform: meeting.platform,
		native_meeting_id: meeting.native_meeting_id,
		stored_at: new Date().toISOString(),
		transcript,
	};
	await env.TRANSCRIPTS.put(transcriptKey(meeting.id), JSON.stringify(stored));
	return undefined;
}

/**
 * Applies a live event to the meeting's record. They arrive in `sequence` (the sender sends the
 * next only after this one was answered), so one at or below the last applied was applied
 * already; a higher one after a gap is applied too (the missing one was given up).
 */
async function applyLive(event: WebhookTranscriptSegments | WebhookParticipantEvent, env: Env): Promise<string> {
	const { meeting, sequence } = event.data;
	const live = (await env.TRANSCRIPTS.get<LiveMeeting>(liveKey(meeting.id), "json")) ?? {
		meeting_id: meeting.id,
		last_sequence: 0,
		lines: [],
		participants: [],
	};
	if (sequence <= live.last_sequence) return "duplicate";
	if (event.event_type === "transcript.segments") {
		for (const s of event.data.segments) {
			const line = {
				segment_id: s.segment_id,
				version: s.version,
				updated_at: s.updated_at,
				speaker: s.speaker,
				text: s.text,
				start: s.start,
				end: s.end,
			};
			const at = live.lines.findIndex((l) => l.segment_id === s.segment_id);
			if (at < 0) live.lines.push(line);
			// Only a newer version replaces a line: a repeat or an older copy changes nothing.
			else if (s.version > (live.lines[at]?.version ?? 0)) live.lines[at] = line;
		}
	} else {
		const { participant, timestamp } = event.data;
		live.participants.push({
			event: event.event_type === "participant.joined" ? "joined" : "left",
			id: participant.id,
			name: participant.name,
			timestamp,
		});
	}
	live.last_sequence = sequence;
	await env.TRANSCRIPTS.put(liveKey(meeting.id), JSON.stringify(live));
	return "applied";
}
