/**
 * The client's verifyWebhook against signatures made by OUR signer (src/webhooks/signature.ts)
 * over envelopes built by OUR envelope code, inside workerd's Web Crypto.
 */
import { describe, expect, it } from "vitest";
import { verifyWebhook, verifyWebhookDelivery, WebhookVerificationError } from "../../../packages/client/src/index";
import { buildEnvelope, type WebhookMeeting } from "../../../src/webhooks/envelope";
import { signWebhook } from "../../../src/webhooks/signature";

const SECRET = "whsec-client-test-0123456789";
const NOW = new Date("2026-06-18T10:42:00.000Z");
const nowSeconds = NOW.getTime() / 1000;

const meeting: WebhookMeeting = {
	id: 42,
	user_id: 7,
	platform: "google_meet",
	native_meeting_id: "abc-defg-hij",
	session_uid: "abc-defg-hij",
	constructed_meeting_url: "https://meet.google.com/abc-defg-hij",
	status: "completed",
	completion_reason: "stopped",
	failure_stage: null,
	start_time: "2026-06-18T10:00:00.000Z",
	end_time: "2026-06-18T10:42:00.000Z",
	data: { title: "Weekly sync — café" },
	created_at: "2026-06-18T09:59:30.000Z",
	updated_at: "2026-06-18T10:42:00.000Z",
};

async function delivery(at = nowSeconds, secret = SECRET) {
	const envelope = await buildEnvelope({
		event_type: "meeting.completed",
		meeting,
		status_change: { from: "stopping", to: "completed", timestamp: meeting.updated_at, transition_source: "user_request" },
		created_at: NOW,
	});
	const body = JSON.stringify(envelope);
	return { envelope, body, headers: { ...(await signWebhook(secret, body, at)), "content-type": "application/json" } };
}

async function reason(promise: Promise<unknown>): Promise<string> {
	const error = await promise.then(
		() => undefined,
		(err: unknown) => err,
	);
	expect(error).toBeInstanceOf(WebhookVerificationError);
	expect(String((error as Error).message)).not.toContain(SECRET);
	return (error as WebhookVerificationError).reason;
}

describe("verifyWebhook (packages/client) on our signer's deliveries", () => {
	it("accepts a delivery as a Request and returns the typed event", async () => {
		const { envelope, body, headers } = await delivery();
		const request = new Request("https://consumer.test/hooks", { method: "POST", headers, body });
		const event = await verifyWebhook(request, SECRET, { now: NOW });
		expect(event).toEqual(envelope);
		expect(event.event_type).toBe("meeting.completed");
		expect(event.data.meeting.native_meeting_id).toBe("abc-defg-hij");
	});

	it("accepts headers and raw bytes (a Node-style header object, a Uint8Array body) and reports the signed time", async () => {
		const { body, headers } = await delivery();
		const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
		const verified = await verifyWebhookDelivery({ headers: lower, body: new TextEncoder().encode(body) }, SECRET, { now: NOW });
		expect(verified.timestamp).toBe(nowSeconds);
	});

	it("refuses a body changed after signing, even by one character", async () => {
		const { body, headers } = await delivery();
		const tampered = body.replace('"status":"completed"', '"status":"completeD"');
		expect(tampered).not.toBe(body);
		expect(await reason(verifyWebhook({ headers, body: tampered }, SECRET, { now: NOW }))).toBe("bad_signature");
	});

	it("refuses a re-serialized body (the signature covers the bytes, not the JSON value)", async () => {
		const { body, headers } = await delivery();
		const pretty = JSON.stringify(JSON.parse(body), null, 2);
		expect(await reason(verifyWebhook({ headers, body: pretty }, SECRET, { now: NOW }))).toBe("bad_signature");
	});

	it("refuses another secret's signature", async () => {
		const { body, headers } = await delivery(nowSeconds, "someone-elses-secret");
		expect(await reason(verifyWebhook({ headers, body }, SECRET, { now: NOW }))).toBe("bad_signature");
		expect(await reason(verifyWebhook({ headers, body }, "", { now: NOW }))).toBe("bad_signature");
	});

	it("keeps the replay window on the signed timestamp, both ways, default 300 s", async () => {
		const old = await delivery(nowSeconds - 301);
		expect(await reason(verifyWebhook(old, SECRET, { now: NOW }))).toBe("stale_timestamp");
		const early = await delivery(nowSeconds + 301);
		expect(await reason(verifyWebhook(early, SECRET, { now: NOW }))).toBe("future_timestamp");
		const edge = await delivery(nowSeconds - 300);
		await expect(verifyWebhook(edge, SECRET, { now: NOW })).resolves.toMatchObject({ event_type: "meeting.completed" });
		expect(await reason(verifyWebhook(edge, SECRET, { now: NOW, toleranceSeconds: 60 }))).toBe("stale_timestamp");
	});

	it("refuses a replay whose timestamp was moved forward (the timestamp is signed)", async () => {
		const old = await delivery(nowSeconds - 3600);
		const moved = { ...old.headers, "X-Webhook-Timestamp": String(nowSeconds) };
		expect(await reason(verifyWebhook({ headers: moved, body: old.body }, SECRET, { now: NOW }))).toBe("bad_signature");
	});

	it("names missing and malformed headers", async () => {
		const { body, headers } = await delivery();
		const without = (name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
		expect(await reason(verifyWebhook({ headers: without("X-Webhook-Signature"), body }, SECRET, { now: NOW }))).toBe("missing_signature");
		expect(await reason(verifyWebhook({ headers: without("X-Webhook-Timestamp"), body }, SECRET, { now: NOW }))).toBe("missing_timestamp");
		const badSig = { ...headers, "X-Webhook-Signature": "sha1=abc" };
		expect(await reason(verifyWebhook({ headers: badSig, body }, SECRET, { now: NOW }))).toBe("malformed_signature");
		const badTs = { ...headers, "X-Webhook-Timestamp": "yesterday" };
		expect(await reason(verifyWebhook({ headers: badTs, body }, SECRET, { now: NOW }))).toBe("malformed_timestamp");
		const repeated = { ...headers, "X-Webhook-Signature": [headers["X-Webhook-Signature"], headers["X-Webhook-Signature"]] };
		expect(await reason(verifyWebhook({ headers: repeated, body }, SECRET, { now: NOW }))).toBe("malformed_signature");
	});

	it("refuses a correctly signed body that is not an event", async () => {
		const body = "not json";
		const headers = await signWebhook(SECRET, body, nowSeconds);
		expect(await reason(verifyWebhook({ headers, body }, SECRET, { now: NOW }))).toBe("malformed_body");
	});
});
