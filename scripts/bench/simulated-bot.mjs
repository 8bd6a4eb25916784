import WebSocket from "ws";
import { mintHostCredential, startSpawnQueue } from "../local-stack.mjs";

const HOST_ID = "bench-simulated";

/**
 * The spawn queue with a stand-in bot host that only claims, so the bench can play the bot:
 * the gateway publishes tickets to the local queue (`gatewayVars`), and `claim(base, meetingId)`
 * pulls them as a host would and claims the meeting's attempt with the ticket and a credential
 * of its own (minted at the gateway with `adminToken` on its first claim there), keeping each
 * spawn request it wins in `spawns`.
 */
export async function startSpawnRecorder({ adminToken }) {
	const spawnQueue = await startSpawnQueue();
	const queueId = spawnQueue.url.split("/").pop();
	/** Tickets pulled and not yet claimed, by meeting id (several bench bots may wait at once). */
	const tickets = new Map();
	const spawns = [];
	/** The stand-in host's credential per gateway. */
	const credentials = new Map();
	const credentialAt = async (base) => {
		if (!credentials.has(base)) credentials.set(base, await mintHostCredential(base, adminToken, HOST_ID));
		return credentials.get(base);
	};
	const takeTickets = () => {
		const pulled = spawnQueue.queue.queues.pull(queueId, { batch_size: 100, visibility_timeout_ms: 60_000 });
		for (const message of pulled) {
			const ticket = JSON.parse(Buffer.from(message.body, "base64").toString("utf8"));
			tickets.set(ticket.meeting_id, ticket);
		}
		spawnQueue.queue.queues.ack(queueId, { acks: pulled.map((m) => ({ lease_id: m.lease_id })) });
	};
	const claim = async (base, meetingId) => {
		for (let i = 0; i < 400 && !tickets.has(meetingId); i++) {
			takeTickets();
			if (!tickets.has(meetingId)) await new Promise((r) => setTimeout(r, 25));
		}
		const ticket = tickets.get(meetingId);
		if (!ticket) throw new Error(`no spawn ticket for meeting ${meetingId}`);
		tickets.delete(meetingId);
		// A host claims only the free slots it last reported (docs/bot-fleet.md#host-credentials).
		const reported = await fetch(`${base}/internal/bot-hosts/reports`, {
			method: "POST",
			headers: { authorization: `Bearer ${await credentialAt(base)}`, "content-type": "application/json" },
			body: JSON.stringify({
				...{ host_id: HOST_ID, version: "bench", slots: 1, running: 0, launching: 0, free: 1 },
				...{ draining: false, mem_available_mb: 8000, load1: 0 },
			}),
		});
		if (reported.status !== 204) throw new Error(`report of the bench host: ${reported.status} ${await reported.text()}`);
		const res = await fetch(`${base}/internal/bot-hosts/claims`, {
			method: "POST",
			headers: { authorization: `Bearer ${await credentialAt(base)}`, "content-type": "application/json" },
			body: JSON.stringify({ meeting_id: ticket.meeting_id, attempt: ticket.attempt, host_id: HOST_ID, version: "bench", ticket }),
		});
		if (res.status !== 200) throw new Error(`claim for meeting ${meetingId}: ${res.status} ${await res.text()}`);
		const spawn = await res.json();
		spawns.push(spawn);
		return spawn;
	};
	return { gatewayVars: spawnQueue.gatewayVars, spawns, claim, close: () => spawnQueue.queue.close() };
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
	const spawn = await recorder.claim(base, meeting.id);
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
