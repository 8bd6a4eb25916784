import { createServer } from "node:http";
import WebSocket from "ws";

/** A stand-in bot host that only records spawn requests, so the bench can play the bot. */
export function startSpawnRecorder() {
	const spawns = [];
	const server = createServer((req, res) => {
		let body = "";
		req.on("data", (c) => {
			body += c;
		});
		req.on("end", () => {
			if (req.method === "POST") spawns.push(JSON.parse(body));
			res.writeHead(202, { "content-type": "application/json" }).end("{}");
		});
	});
	return new Promise((resolve) =>
		server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, spawns, server })),
	);
}

const open = (url, headers = {}) =>
	new Promise((resolve, reject) => {
		const ws = new WebSocket(url, { headers, perMessageDeflate: process.env.BENCH_DEFLATE !== "0" });
		ws.once("open", () => resolve(ws));
		ws.once("error", reject);
	});

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

async function measure({ base, key, recorder, subscribers, segments, code }) {
	const created = await (
		await fetch(`${base}/bots`, {
			method: "POST",
			headers: { "X-API-Key": key, "content-type": "application/json" },
			body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
		})
	).json();
	let spawn;
	for (let i = 0; i < 200 && !spawn; i++) {
		spawn = recorder.spawns.find((s) => s.meeting_id === created.id);
		if (!spawn) await new Promise((r) => setTimeout(r, 25));
	}
	const bot = await open(spawn.channel.url, { Authorization: `Bearer ${spawn.channel.token}` });
	let seq = 0;
	const acks = new Map();
	bot.on("message", (d) => {
		const m = JSON.parse(String(d));
		if (m.type === "ack") acks.get(m.seq)?.();
	});
	const send = (message) =>
		new Promise((resolve) => {
			seq += 1;
			acks.set(seq, resolve);
			bot.send(JSON.stringify({ ...message, seq }));
		});
	bot.send(JSON.stringify({ type: "hello", last_acked_seq: 0 }));
	await send({ type: "status", status: "active", timestamp: new Date().toISOString() });

	const latencies = [];
	const pending = new Map();
	const sockets = [];
	const wsBase = base.replace(/^http/, "ws");
	for (let i = 0; i < subscribers; i++) {
		const ws = await open(`${wsBase}/ws`, { "X-API-Key": key });
		ws.on("message", (d) => {
			const m = JSON.parse(String(d));
			if (m.type !== "transcript") return;
			const sentAt = pending.get(m.confirmed[0]?.segment_id);
			if (sentAt === undefined) return;
			latencies.push(performance.now() - sentAt.at);
			sentAt.left -= 1;
			if (sentAt.left === 0) sentAt.done();
		});
		await new Promise((resolve) => {
			ws.once("message", resolve);
			ws.send(JSON.stringify({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] }));
		});
		sockets.push(ws);
	}
	for (let i = 0; i < segments; i++) {
		const id = `bench-${i}`;
		await new Promise((done) => {
			pending.set(id, { at: performance.now(), left: subscribers, done });
			bot.send(
				JSON.stringify({
					type: "segment",
					seq: ++seq,
					segment: {
						segment_id: id,
						speaker: "Bench",
						speaker_source: "caption",
						text: `segment ${i}`,
						start: i,
						end: i + 0.5,
						completed: true,
					},
				}),
			);
		});
	}
	for (const ws of sockets) ws.close();
	bot.close();
	await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
	latencies.sort((a, b) => a - b);
	return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), n: latencies.length };
}

/** Segment sent on the bot channel → arrival at /ws subscribers, with 1 and 500 subscribers. */
export async function benchLiveFeed({ base, key, recorder }) {
	console.log("\n## Live transcript: bot channel segment → /ws subscriber (through wrangler dev)");
	for (const [subscribers, segments, code] of [
		[1, 300, "ben-chon-eaa"],
		[500, 60, "ben-chfi-vee"],
	]) {
		const r = await measure({ base, key, recorder, subscribers, segments, code });
		console.log(
			`${String(subscribers).padStart(4)} subscriber(s): p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   (${r.n} deliveries; goal p99 < 50 ms at 500)`,
		);
	}
}
