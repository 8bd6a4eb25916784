/**
 * The consumer Worker inside workerd, fed the gateway's REAL deliveries of one meeting
 * (test/global-setup.ts plays it when asked and records them as sent), fetching the transcript from that same gateway.
 */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { signWebhook } from "../../../src/webhooks/signature";
import { eventKey, type LiveMeeting, liveKey, type StoredTranscript, transcriptKey } from "../src/index";
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
const eventOf = (d: Delivery) => JSON.parse(d.body) as { event_id: string; data: { meeting: { id: number }; sequence?: number } };
const LIVE_TYPES = new Set(["transcript.segments", "participant.joined", "participant.left"]);
const live = () => deliveries.filter((d) => LIVE_TYPES.has(typeOf(d)));
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
		expect(new Set(deliveries.map(typeOf))).toEqual(
			new Set(["meeting.status_change", "meeting.started", "meeting.completed", ...LIVE_TYPES]),
		);
		for (const d of deliveries) expect(d.headers["x-webhook-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
	});

	it("verifies every delivery and stores the transcript fetched from the gateway on meeting.completed", async () => {
		for (const d of deliveries.filter((x) => typeOf(x) !== "meeting.completed" && !LIVE_TYPES.has(typeOf(x)))) {
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

	it("builds the live transcript from the live events: each line once, its latest version, and who joined and left", async () => {
		const events = live();
		expect(events.map((d) => eventOf(d).data.sequence)).toEqual(events.map((_, i) => i + 1));
		for (const d of events) {
			const res = await deliver(d);
			expect(res.status, await res.clone().text()).toBe(200);
			expect(await res.json()).toEqual({ status: "applied", event_id: eventOf(d).event_id });
		}
		const meetingId = eventOf(completed()).data.meeting.id;
		const record = await env.TRANSCRIPTS.get<LiveMeeting>(liveKey(meetingId), "json");
		expect(record?.lines.map((l) => [l.segment_id, l.version, l.speaker, l.text])).toEqual([
			["s-0", 2, "Priya Raman", "The consumer stores this transcript."],
			["s-1", 1, "Sam", "Fetched with the typed client."],
		]);
		expect(record?.participants.map((p) => [p.event, p.name])).toEqual([
			["joined", "Sam"],
			["left", "Sam"],
		]);
		expect(record?.last_sequence).toBe(events.length);
	});

	it("changes nothing for a redelivered batch, nor for an older version of a line under a new event", async () => {
		const meetingId = eventOf(completed()).data.meeting.id;
		const before = await env.TRANSCRIPTS.get<LiveMeeting>(liveKey(meetingId), "json");
		const first = live().find((d) => typeOf(d) === "transcript.segments");
		if (!first) throw new Error("no transcript.segments delivery was recorded");
		const again = await deliver(first);
		expect(await again.json()).toEqual({ status: "duplicate", event_id: eventOf(first).event_id });

		// A later event (as if the sender had given one up in between) that carries version 1 of a line already at 2.
		const stale = JSON.parse(first.body) as {
			event_id: string;
			data: { sequence: number; segments: { segment_id: string; version: number }[] };
		};
		stale.event_id = `evt_${"1".repeat(32)}`;
		stale.data.sequence = (before?.last_sequence ?? 0) + 2;
		expect(stale.data.segments.find((s) => s.segment_id === "s-0")?.version).toBe(1);
		const body = JSON.stringify(stale);
		const signed = lower(await signWebhook(inject("consumerWebhookSecret"), body, Date.now() / 1000));
		const res = await deliver({ headers: { ...first.headers, ...signed }, body });
		expect(await res.json()).toEqual({ status: "applied", event_id: stale.event_id });
		const after = await env.TRANSCRIPTS.get<LiveMeeting>(liveKey(meetingId), "json");
		expect(after?.lines).toEqual(before?.lines);
		expect(after?.last_sequence).toBe(stale.data.sequence);
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
