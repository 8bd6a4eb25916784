/**
 * `verifyWebhook()` for receivers (docs/webhooks.md#signature): the HMAC-SHA256 of
 * "<timestamp>.<raw body>" under the account's secret, checked with `crypto.subtle.verify`
 * (constant time) on the exact bytes received, and the signed timestamp within the replay window
 * either way. Web Crypto only, so it runs in Workers, browsers and Node 20+.
 */

import type { components } from "./schema.js";

export const SIGNATURE_HEADER = "X-Webhook-Signature";
export const TIMESTAMP_HEADER = "X-Webhook-Timestamp";

type S = components["schemas"];

/** A delivery's body (docs/webhooks.md#envelope), generated from the Worker's declaration. `event_id` is the same for every redelivery: de-duplicate on it. */
export type WebhookEvent = S["WebhookEvent"];
export type WebhookEventType = WebhookEvent["event_type"];
/** A status event (`meeting.started`, `meeting.completed`, `bot.failed`, `meeting.status_change`): it carries the meeting record. */
export type WebhookMeetingEvent = S["WebhookMeetingEvent"];
/** `transcript.segments` (docs/webhooks.md#live-events): confirmed lines, batched; de-duplicate segments on `segment_id` + `version`. */
export type WebhookTranscriptSegments = S["WebhookTranscriptSegments"];
/** `participant.joined` / `participant.left` (docs/webhooks.md#live-events). */
export type WebhookParticipantEvent = S["WebhookParticipantEvent"];
/** The meeting record a status event carries (never the transcript: fetch it with `transcripts.get`). */
export type WebhookMeeting = WebhookMeetingEvent["data"]["meeting"];
export type WebhookStatusChange = NonNullable<WebhookMeetingEvent["data"]["status_change"]>;
/** One confirmed line of a `transcript.segments` batch. */
export type WebhookSegment = WebhookTranscriptSegments["data"]["segments"][number];

export type WebhookFailure =
	| "missing_signature"
	| "malformed_signature"
	| "missing_timestamp"
	| "malformed_timestamp"
	| "stale_timestamp"
	| "future_timestamp"
	| "bad_signature"
	| "malformed_body";

/** A delivery that must be refused (answer 401); `reason` says why, never the secret. */
export class WebhookVerificationError extends Error {
	constructor(readonly reason: WebhookFailure) {
		super(`webhook rejected: ${reason}`);
		this.name = "WebhookVerificationError";
	}
}

export type WebhookBody = string | ArrayBuffer | ArrayBufferView;
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
	/** Largest distance between the signed timestamp and now, either way. Default 300. */
	toleranceSeconds?: number;
	/** The receiver's clock; defaults to the system clock. */
	now?: Date;
}

export interface VerifiedWebhook {
	event: WebhookEvent;
	/** The signed timestamp (unix seconds). */
	timestamp: number;
}

/**
 * Verifies a delivery (a `Request`, whose body it reads, or the headers and raw body) and returns
 * its event; throws `WebhookVerificationError` otherwise.
 */
export async function verifyWebhook(
	delivery: Request | { headers: WebhookHeaders; body: WebhookBody },
	secret: string,
	options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
	return (await verifyWebhookDelivery(delivery, secret, options)).event;
}

/** `verifyWebhook`, also returning the signed timestamp. */
export async function verifyWebhookDelivery(
	delivery: Request | { headers: WebhookHeaders; body: WebhookBody },
	secret: string,
	options: VerifyWebhookOptions = {},
): Promise<VerifiedWebhook> {
	const body = isRequest(delivery) ? await delivery.arrayBuffer() : delivery.body;
	const signature = header(delivery.headers, SIGNATURE_HEADER);
	const stamp = header(delivery.headers, TIMESTAMP_HEADER);
	if (signature === undefined) throw new WebhookVerificationError("missing_signature");
	if (stamp === undefined) throw new WebhookVerificationError("missing_timestamp");
	const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
	if (!match) throw new WebhookVerificationError("malformed_signature");
	const timestamp = stamp.trim();
	if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("malformed_timestamp");

	const signedAt = Number(timestamp);
	const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
	const tolerance = Math.max(0, options.toleranceSeconds ?? 300);
	if (signedAt < now - tolerance) throw new WebhookVerificationError("stale_timestamp");
	if (signedAt > now + tolerance) throw new WebhookVerificationError("future_timestamp");

	// An empty secret would accept a MAC anyone can compute.
	if (secret === "") throw new WebhookVerificationError("bad_signature");
	const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
	const raw = bytesOf(body);
	const valid = await crypto.subtle.verify("HMAC", key, fromHex(match[1] ?? ""), concat(encoder.encode(`${timestamp}.`), raw));
	if (!valid) throw new WebhookVerificationError("bad_signature");

	let event: WebhookEvent;
	try {
		event = JSON.parse(new TextDecoder().decode(raw)) as WebhookEvent;
	} catch {
		throw new WebhookVerificationError("malformed_body");
	}
	if (typeof event !== "object" || event === null || typeof event.event_id !== "string" || typeof event.event_type !== "string") {
		throw new WebhookVerificationError("malformed_body");
	}
	return { event, timestamp: signedAt };
}

const encoder = new TextEncoder();

function isRequest(value: unknown): value is Request {
	return typeof Request !== "undefined" && value instanceof Request;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
	if (headers instanceof Headers) return headers.get(name) ?? undefined;
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
		if (key.toLowerCase() !== wanted || value === undefined) continue;
		// A repeated header is ambiguous: malformed rather than pick one.
		return Array.isArray(value) ? (value.length === 1 ? value[0] : "") : value;
	}
	return undefined;
}

function bytesOf(body: WebhookBody): Uint8Array<ArrayBuffer> {
	if (typeof body === "string") return new Uint8Array(encoder.encode(body));
	if (body instanceof ArrayBuffer) return new Uint8Array(body);
	return new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength).slice();
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
	const out = new Uint8Array(a.length + b.length);
	out.set(a, 0);
	out.set(b, a.length);
	return out;
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
	const out = new Uint8Array(hex.length / 2);
	for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
	return out;
}
