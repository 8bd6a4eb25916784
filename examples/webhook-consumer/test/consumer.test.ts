/**
 * The consumer Worker inside workerd, fed the gateway's REAL deliveries of one meeting
 * (test/global-setup.ts plays it when asked and records them as sent), fetching the transcript from that same gateway.
 */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { signWebhook } from "../../../src/webhooks/signature";
import { eventKey, type StoredTranscript, transcriptKey } from "../src/index";
import type { PlayedMeeting, RecordedDelivery } from "./provided";

type Delivery = RecordedDelivery;

let deliveries: Delivery[] = [];
let meetingLink: PlayedMeeting["completedMeeting"];

// The meeting is played now, so each signature's timestamp is fresh for the replay window.
beforeAll(async () => {
	const res = await fetch(inject("meetingRunnerUrl"), { method: "POST" });
	expect(res.status, await res.clone().text()).toBe(200);
	({ deliveries, completedMeeting: meetingLink } = (await res.json()) as PlayedMeeting);
}, 60_000);
const typeOf = (d: Delivery) => (JSON.parse(d.body) as { event_type: string }).event_type;
const eventOf = (d: Delivery) => JSON.parse(d.body) as { event_id: string; data: { meeting: { id: number } } };
const completed = () => {
	const found = deliveries.find((d) => typeOf(d) === "meeting.completed");
	if (!found) throw new Error("no meeting.completed delivery was recorded");
	return found;
};

/** Posts a delivery to the consumer as the gateway did: the same headers and bytes. */
function deliver(d: Delivery) {
	const headers = Object.fromEntries(Object.entries(d.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)));
	return SELF.fetch("https://consumer.test/webhooks/meetbot", { method: "POST", headers, body: d.body });
}

async function liveTranscript() {
	const res = await fetch(`${inject("consumerGatewayUrl")}/transcripts/${meetingLink.platform}/${meetingLink.native_meeting_id}`, {
		headers: { "X-API-Key": inject("consumerApiKey") },
	});
	expect(res.status).toBe(200);
	return res.json();
}

describe("the webhook consumer on the gateway's real deliveries", () => {
	it("received signed deliveries of several event types", () => {
		expect(deliveries.length).toBeGreaterThanOrEqual(4);
		expect(new Set(deliveries.map(typeOf))).toEqual(new Set(["meeting.status_change", "meeting.started", "meeting.completed"]));
		for (const d of deliveries) expect(d.headers["x-webhook-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
	});

	it("verifies every delivery and stores the transcript fetched from the gateway on meeting.completed", async () => {
		for (const d of deliveries.filter((x) => typeOf(x) !== "meeting.completed")) {
			const res = await deliver(d);
			expect(res.status, await res.clone().text()).toBe(200);
			expect(await res.json()).toEqual({ status: "ignored", event_id: eventOf(d).event_id });
		}
		const done = completed();
		const res = await deliver(done);
		expect(res.status, await res.clone().text()).toBe(200);
		expect(await res.json()).toEqual({ status: "stored", event_id: eventOf(done).event_id });

		const stored = await env.TRANSCRIPTS.get<StoredTranscript>(transcriptKey(eventOf(done).data.meeting.id), "json");
		expect(stored).not.toBeNull();
		expect(stored?.event_id).toBe(eventOf(done).event_id);
		expect(stored?.transcript).toEqual(await liveTranscript());
		expect(stored?.transcript.segments.map((s) => s.text)).toEqual([
			"The consumer stores this transcript.",
			"Fetched with the typed client.",
		]);
		expect(await env.TRANSCRIPTS.get(eventKey(eventOf(done).event_id))).toBe("stored");
	});

	it("ignores a redelivery of an event it has handled: no second fetch, nothing rewritten", async () => {
		const done = completed();
		const key = transcriptKey(eventOf(done).data.meeting.id);
		const before = await env.TRANSCRIPTS.get<StoredTranscript>(key, "json");
		expect(before).not.toBeNull();
		const res = await deliver(done);
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "duplicate", event_id: eventOf(done).event_id });
		expect(await env.TRANSCRIPTS.get<StoredTranscript>(key, "json")).toEqual(before);
	});

	it("answers 401 to a tampered body and stores nothing", async () => {
		const done = completed();
		const tampered = { ...done, body: done.body.replace('"event_type":"meeting.completed"', '"event_type":"meeting.completed" ') };
		const changedId = {
			...done,
			body: done.body.replace(eventOf(done).event_id, `evt_${"0".repeat(32)}`),
		};
		for (const d of [tampered, changedId]) {
			expect(d.body).not.toBe(done.body);
			const res = await deliver(d);
			expect(res.status).toBe(401);
			expect(await res.json()).toEqual({ detail: "bad_signature" });
		}
		expect(await env.TRANSCRIPTS.get(eventKey(`evt_${"0".repeat(32)}`))).toBeNull();
	});

	it("answers 401 to a replay: an old signed timestamp, or an old delivery with a fresh timestamp", async () => {
		const done = completed();
		const secret = inject("consumerWebhookSecret");
		const old = Math.floor(Date.now() / 1000) - 3600;
		const resigned = { headers: { ...done.headers, ...lower(await signWebhook(secret, done.body, old)) }, body: done.body };
		const stale = await deliver(resigned);
		expect(stale.status).toBe(401);
		expect(await stale.json()).toEqual({ detail: "stale_timestamp" });

		const moved = { headers: { ...resigned.headers, "x-webhook-timestamp": String(Math.floor(Date.now() / 1000)) }, body: done.body };
		const forged = await deliver(moved);
		expect(forged.status).toBe(401);
		expect(await forged.json()).toEqual({ detail: "bad_signature" });
	});

	it("answers 401 to an unsigned POST and 405 to anything but POST", async () => {
		const unsigned = await SELF.fetch("https://consumer.test/", { method: "POST", body: completed().body });
		expect(unsigned.status).toBe(401);
		expect(await unsigned.json()).toEqual({ detail: "missing_signature" });
		expect((await SELF.fetch("https://consumer.test/")).status).toBe(405);
	});
});

function lower(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
}
