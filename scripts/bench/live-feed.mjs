import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { freePort } from "../ports.mjs";
import { startRelayFloor } from "./relay-floor/start.mjs";
import { openSocket, sendSimulatedBot } from "./simulated-bot.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * Opens `count` receivers and times each message from `send(id, i)` to its arrival at every
 * receiver (a transcript bundle naming the id in `confirmed`), one message at a time.
 */
async function timeDeliveries({ count, messages, open, send }) {
	const latencies = [];
	const pending = new Map();
	const sockets = [];
	for (let i = 0; i < count; i++) {
		const ws = await open();
		ws.on("message", (d) => {
			const m = JSON.parse(String(d));
			if (m.type !== "transcript") return;
			const sentAt = pending.get(m.confirmed[0]?.segment_id);
			if (sentAt === undefined) return;
			latencies.push(performance.now() - sentAt.at);
			sentAt.left -= 1;
			if (sentAt.left === 0) sentAt.done();
		});
		sockets.push(ws);
	}
	for (let i = 0; i < messages; i++) {
		const id = `bench-${i}`;
		await new Promise((done) => {
			pending.set(id, { at: performance.now(), left: count, done });
			void send(id, i);
		});
	}
	for (const ws of sockets) ws.close();
	latencies.sort((a, b) => a - b);
	return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

/** Ours: a segment on the bot channel → its transcript bundle at every /ws subscriber (one user's sockets). */
async function measureOurs({ base, key, recorder, subscribers, segments, code }) {
	const bot = await sendSimulatedBot({ base, key, recorder, code });
	const wsBase = base.replace(/^http/, "ws");
	const r = await timeDeliveries({
		count: subscribers,
		messages: segments,
		open: async () => {
			const ws = await openSocket(`${wsBase}/ws`, { "X-API-Key": key });
			const first = await new Promise((resolve) => {
				ws.once("message", (data) => resolve(String(data)));
				ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
			});
			// A refused socket (e.g. past LIVE_FEED_MAX_SOCKETS) would otherwise wait for deliveries forever.
			if (JSON.parse(first).type !== "subscribed") throw new Error(`/ws did not take the subscriber: ${first}`);
			return ws;
		},
		// Timed to the subscribers, not to the ack (which waits for D1).
		send: (id, i) => bot.say(id, i),
	});
	bot.ws.close();
	await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
	return r;
}

/** What a subscriber receives for one confirmed segment of `say(id, i)`: the floor relays this many bytes. */
function bundleLike(id, i, meetingId) {
	const segment = {
		segment_id: id,
		speaker: "Bench",
		speaker_source: "caption",
		text: `segment ${i}`,
		start: i,
		end: i + 0.5,
		start_time: i,
		end_time: i + 0.5,
		language: null,
		completed: true,
	};
	return {
		type: "transcript",
		meeting: { id: meetingId, platform: "google_meet", native_id: "ben-chon-eaa" },
		speaker: "Bench",
		confirmed: [segment],
		pending: [],
		ts: new Date().toISOString(),
	};
}

/** The floor: one socket's message relayed by a bare Durable Object to `receivers` sockets. */
async function measureFloor({ relayBase, receivers, messages, room, hop = false }) {
	// With a hop, the sender's object forwards to a second object holding the receivers.
	const senderUrl = `${relayBase}/relay?room=${room}-in&role=sender${hop ? `&hop=${room}-out` : ""}`;
	const receiverUrl = `${relayBase}/relay?room=${hop ? `${room}-out` : `${room}-in`}&role=receiver`;
	const sender = await openSocket(senderUrl);
	const r = await timeDeliveries({
		count: receivers,
		messages,
		open: () => openSocket(receiverUrl),
		send: (id, i) => sender.send(JSON.stringify(bundleLike(id, i, 1))),
	});
	sender.close();
	return r;
}

const ms = (v) => `${v.toFixed(1).padStart(6)} ms`;

/**
 * Segment sent on the bot channel → arrival at /ws subscribers, with 1 and 500 subscribers,
 * against the floor measured in the same run: a bare relay Durable Object (scripts/bench/relay-floor).
 */
export async function benchLiveFeed({ base, key, recorder }) {
	const relayPort = Number(process.env.BENCH_RELAY_PORT) || (await freePort());
	const relayState = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-relay-"));
	const relay = await startRelayFloor({ port: relayPort, stateDir: relayState });
	const relayBase = `ws://127.0.0.1:${relayPort}`;
	console.log(
		"\n## Live transcript: bot channel segment → /ws subscriber, against a bare relay Durable Object (both through wrangler dev)",
	);
	try {
		for (const [subscribers, segments, code] of [
			[1, 300, "ben-chon-eaa"],
			[500, 60, "ben-chfi-vee"],
		]) {
			// The floor first, then ours, back to back, so drift in the machine's load falls on both alike.
			const floor = await measureFloor({ relayBase, receivers: subscribers, messages: segments, room: `n${subscribers}` });
			const hop = await measureFloor({ relayBase, receivers: subscribers, messages: segments, room: `h${subscribers}`, hop: true });
			const ours = await measureOurs({ base, key, recorder, subscribers, segments, code });
			const label = `${String(subscribers).padStart(4)} subscriber(s)`;
			console.log(`${label} floor: p50 ${ms(floor.p50)}   p99 ${ms(floor.p99)}   (${floor.n} deliveries)`);
			console.log(`${label} floor + one object hop: p50 ${ms(hop.p50)}   p99 ${ms(hop.p99)}`);
			console.log(`${label} ours:  p50 ${ms(ours.p50)}   p99 ${ms(ours.p99)}   (${ours.n} deliveries)`);
			console.log(
				`${label} ratio: p50 ${(ours.p50 / floor.p50).toFixed(2)}x   p99 ${(ours.p99 / floor.p99).toFixed(2)}x   (goal: at most 1.5x)`,
			);
		}
		await benchWithLiveWebhooks({ base, key, recorder, relayBase });
	} finally {
		relay.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 500));
		rmSync(relayState, { recursive: true, force: true });
	}
}

/** A local webhook receiver that answers 200 and counts the transcript lines it was pushed. */
async function startHookSink() {
	const sink = { batches: 0, lines: 0 };
	const server = createServer((req, res) => {
		let body = "";
		req.on("data", (chunk) => (body += chunk));
		req.on("end", () => {
			const event = JSON.parse(body);
			if (event.event_type === "transcript.segments") {
				sink.batches += 1;
				sink.lines += event.data.segments.length;
			}
			res.writeHead(200).end("ok");
		});
	});
	await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
	return { sink, url: `http://127.0.0.1:${server.address().port}/hooks`, close: () => server.close() };
}

async function putWebhook(base, key, settings) {
	const res = await fetch(`${base}/user/webhook`, {
		method: "PUT",
		headers: { "X-API-Key": key, "content-type": "application/json" },
		body: JSON.stringify(settings),
	});
	if (!res.ok) throw new Error(`PUT /user/webhook: ${res.status} ${await res.text()}`);
}

/**
 * The one-subscriber run again with the account's `transcript.segments` webhook on (docs/webhooks.md#live-events):
 * its batching runs in the room beside the live path, which this shows it does not slow.
 */
async function benchWithLiveWebhooks({ base, key, recorder, relayBase }) {
	const hooks = await startHookSink();
	await putWebhook(base, key, { webhook_url: hooks.url, webhook_events: { "transcript.segments": true } });
	try {
		const segments = 300;
		const floor = await measureFloor({ relayBase, receivers: 1, messages: segments, room: "w1" });
		const ours = await measureOurs({ base, key, recorder, subscribers: 1, segments, code: "ben-chwh-ook" });
		// The last batch goes out at most 2 s after its first line.
		for (let waited = 0; hooks.sink.lines < segments && waited < 15_000; waited += 250) await new Promise((r) => setTimeout(r, 250));
		const label = "   1 subscriber(s), live webhooks on";
		console.log(`${label} floor: p50 ${ms(floor.p50)}   p99 ${ms(floor.p99)}`);
		console.log(`${label} ours:  p50 ${ms(ours.p50)}   p99 ${ms(ours.p99)}   (${ours.n} deliveries)`);
		console.log(
			`${label} ratio: p50 ${(ours.p50 / floor.p50).toFixed(2)}x   p99 ${(ours.p99 / floor.p99).toFixed(2)}x   (goal: at most 1.5x)`,
		);
		console.log(`${label} receiver: ${hooks.sink.lines} of ${segments} lines in ${hooks.sink.batches} transcript.segments batches`);
	} finally {
		await putWebhook(base, key, { webhook_url: "", webhook_events: {} });
		hooks.close();
	}
}
