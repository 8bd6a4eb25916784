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

export const openSocket = (url, headers = {}) =>
	new Promise((resolve, reject) => {
		const ws = new WebSocket(url, { headers, perMessageDeflate: process.env.BENCH_DEFLATE !== "0" });
		ws.once("open", () => resolve(ws));
		ws.once("error", reject);
	});

/**
 * Sends a bot to a meeting code and plays that bot on the real channel (docs/bot-channel.md):
 * `send` numbers each message and resolves on the room's ack (it is durable then); `say(id, i)`
 * sends a confirmed segment.
 */
export async function sendSimulatedBot({ base, key, recorder, code }) {
	const meeting = await (
		await fetch(`${base}/bots`, {
			method: "POST",
			headers: { "X-API-Key": key, "content-type": "application/json" },
			body: JSON.stringify({ platform: "google_meet", native_meeting_id: code }),
		})
	).json();
	let spawn;
	for (let i = 0; i < 200 && !spawn; i++) {
		spawn = recorder.spawns.find((s) => s.meeting_id === meeting.id);
		if (!spawn) await new Promise((r) => setTimeout(r, 25));
	}
	if (!spawn) throw new Error(`no spawn request for meeting ${code}`);
	const ws = await openSocket(spawn.channel.url, { Authorization: `Bearer ${spawn.channel.token}` });
	let seq = 0;
	const acks = new Map();
	ws.on("message", (d) => {
		const m = JSON.parse(String(d));
		if (m.type === "ack") acks.get(m.seq)?.();
	});
	const send = (message) =>
		new Promise((resolve) => {
			seq += 1;
			acks.set(seq, resolve);
			ws.send(JSON.stringify({ ...message, seq }));
		});
	ws.send(JSON.stringify({ type: "hello", last_acked_seq: 0 }));
	await send({ type: "status", status: "active", timestamp: new Date().toISOString() });
	const say = (id, i) =>
		send({
			type: "segment",
			segment: {
				segment_id: id,
				speaker: "Bench",
				speaker_source: "caption",
				text: `segment ${i}`,
				start: i,
				end: i + 0.5,
				completed: true,
			},
		});
	return { meeting, ws, send, say };
}
