import { sendSimulatedBot } from "./simulated-bot.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Reads an SSE body in the background, calling `onEvent({id, frame})` per event. */
export function follow(res, onEvent) {
	if (!res.ok || !res.body) throw new Error(`GET meeting stream: ${res.status}`);
	const reader = res.body.getReader();
	const decoder = new TextDecoder();
	let buffer = "";
	const reading = (async () => {
		for (;;) {
			const { done, value } = await reader.read().catch(() => ({ done: true }));
			if (done) return;
			buffer += decoder.decode(value, { stream: true });
			for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
				const block = buffer.slice(0, end);
				buffer = buffer.slice(end + 2);
				const lines = block.split("\n");
				const id = lines.find((l) => l.startsWith("id: "));
				const data = lines.find((l) => l.startsWith("data: "));
				if (id && data) onEvent({ id: Number(id.slice(4)), frame: JSON.parse(data.slice(6)) });
			}
		}
	})();
	return { close: () => reader.cancel().catch(() => undefined), reading };
}

/**
 * The meeting stream (GET /agent/api/meeting/stream, served by the meeting's MeetingStream): a segment
 * sent on the bot channel → its `transcript` event at an SSE client, through wrangler dev; then
 * a client that drops, misses events and reconnects with `Last-Event-ID` gets every one it
 * missed, once, in order.
 */
export async function benchMeetingStream({ base, key, recorder, segments = 300, missed = 200 }) {
	const headers = { "X-API-Key": key };
	const code = "ben-strm-eam";
	const bot = await sendSimulatedBot({ base, key, recorder, code });
	const streamUrl = `${base}/agent/api/meeting/stream?meeting_id=${bot.meeting.id}&session_uid=${code}`;

	const waiting = new Map();
	let lastId = 0;
	const live = follow(await fetch(streamUrl, { headers }), ({ id, frame }) => {
		lastId = id;
		if (frame.type === "transcript") waiting.get(frame.id)?.();
	});
	const latencies = [];
	for (let i = 0; i < segments; i++) {
		const id = `live-${i}`;
		const started = performance.now();
		const arrived = new Promise((resolve) => waiting.set(id, () => resolve(performance.now())));
		// The ack waits for D1 and the stream's log; the stream's readers get the segment as it is logged, so arrival is timed on its own.
		const [, at] = await Promise.all([bot.say(id, i), arrived]);
		// The first segment warms the meeting's stream object; it is not counted.
		if (i > 0) latencies.push(at - started);
	}
	const resumeFrom = lastId;
	await live.close();

	for (let i = 0; i < missed; i++) await bot.say(`missed-${i}`, segments + i);
	const resumed = [];
	let allIn;
	const complete = new Promise((resolve) => {
		allIn = resolve;
	});
	const again = follow(await fetch(streamUrl, { headers: { ...headers, "Last-Event-ID": String(resumeFrom) } }), (event) => {
		if (event.frame.type === "ping") return;
		resumed.push(event);
		if (resumed.length >= missed) allIn();
	});
	await Promise.race([complete, new Promise((r) => setTimeout(r, 10_000))]);
	await again.close();
	bot.ws.close();
	await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers });

	const expected = Array.from({ length: missed }, (_, i) => `missed-${i}`);
	const got = resumed.map((e) => e.frame.id);
	const ids = resumed.map((e) => e.id);
	const inOrder = ids.every((id, i) => id === resumeFrom + 1 + i);
	const exact = got.length === expected.length && got.every((id, i) => id === expected[i]) && inOrder;
	latencies.sort((a, b) => a - b);
	console.log("\n## Meeting stream (GET /agent/api/meeting/stream, the meeting's MeetingStream, through wrangler dev)");
	console.log(
		`bot channel segment → transcript event at the SSE client: p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (${latencies.length} segments)`,
	);
	console.log(
		`resume after reconnect (Last-Event-ID ${resumeFrom}): ${got.length} of ${missed} missed events delivered, ` +
			`${new Set(ids).size === ids.length ? "no duplicates" : "DUPLICATES"}, ${inOrder ? "ids consecutive" : "IDS NOT CONSECUTIVE"}: ${exact ? "exact" : "NOT EXACT"}`,
	);
	if (!exact) process.exitCode = 1;
}
