/**
 * Receives meetbot webhooks (docs/webhooks.md): verifies each delivery with `verifyWebhook`
 * (401 on a bad signature or a timestamp outside the replay window), and on `meeting.completed`
 * fetches the meeting's transcript with the typed client and stores it in KV. Deliveries are at
 * least once, so each event id is handled once: a redelivery is answered 200 without a second fetch.
 */
import {
	createClient,
	MeetbotApiError,
	type Platform,
	type Transcript,
	verifyWebhook,
	type WebhookEvent,
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

/** How long a handled event id is remembered: longer than the sender's 24 h of retries. */
const EVENT_MEMORY_SECONDS = 7 * 24 * 3600;

export const transcriptKey = (meetingId: number) => `transcript:${meetingId}`;
export const eventKey = (eventId: string) => `event:${eventId}`;

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
		}
		await env.TRANSCRIPTS.put(eventKey(event.event_id), outcome, { expirationTtl: EVENT_MEMORY_SECONDS });
		return reply(200, { status: outcome, event_id: event.event_id });
	},
} satisfies ExportedHandler<Env>;

/** Fetches and stores the transcript; a Response when the delivery should end otherwise. */
async function storeTranscript(event: WebhookEvent, env: Env): Promise<Response | undefined> {
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
