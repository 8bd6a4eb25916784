import { env, SELF } from "cloudflare:test";
import type { BotToRoom, RoomToBot, SpawnRequest } from "../../../src/bot-channel/protocol";
import { received } from "../webhooks/receiver";

/** Waits until `check` returns a value, polling; fails with `what` after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 8000): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

/**
 * The spawn requests the Worker sent to the bot host for a meeting (the receiver records them).
 * Each test file has its own D1, so meeting ids repeat across files while the receiver is shared:
 * a spawn is this meeting's only if its link matches too.
 */
export async function spawnRequestsFor(meetingId: number): Promise<SpawnRequest[]> {
	const row = await env.DB.prepare("SELECT native_meeting_id FROM meetings WHERE id = ?")
		.bind(meetingId)
		.first<{ native_meeting_id: string | null }>();
	const requests = await received("/bot-host/bots");
	return requests
		.map((r) => JSON.parse(r.body) as SpawnRequest)
		.filter((s) => s.meeting_id === meetingId && s.native_meeting_id === row?.native_meeting_id);
}

/** The (first) spawn request the Worker sent to the bot host for a meeting. */
export async function spawnRequestFor(meetingId: number): Promise<SpawnRequest> {
	return eventually(`spawn of meeting ${meetingId}`, async () => (await spawnRequestsFor(meetingId))[0]);
}

/** A WebSocket client that keeps every message it gets. */
export class SocketClient {
	readonly messages: Record<string, unknown>[] = [];
	closed: { code: number; reason: string } | undefined;

	constructor(readonly socket: WebSocket) {
		socket.accept();
		socket.addEventListener("message", (e) => {
			this.messages.push(JSON.parse(String(e.data)));
		});
		socket.addEventListener("close", (e) => {
			this.closed = { code: e.code, reason: e.reason };
		});
	}

	send(message: unknown): void {
		this.socket.send(JSON.stringify(message));
	}

	waitFor<T = Record<string, unknown>>(what: string, match: (m: Record<string, unknown>) => boolean, ms?: number): Promise<T> {
		return eventually(what, () => this.messages.find(match) as T | undefined, ms);
	}

	close(): void {
		this.socket.close(1000, "done");
	}
}

export async function openSocket(path: string, headers: Record<string, string>): Promise<SocketClient> {
	const res = await SELF.fetch(`https://gateway.test${path}`, { headers: { Upgrade: "websocket", ...headers } });
	if (!res.webSocket) throw new Error(`no WebSocket from ${path}: ${res.status} ${await res.text()}`);
	return new SocketClient(res.webSocket);
}

/** A bot → room message without its seq (distributes over the union). */
export type Unsequenced = BotToRoom extends infer T ? (T extends { seq: number } ? Omit<T, "seq"> : never) : never;

/** Plays the bot: connects the channel with the spawn's token and speaks the protocol. */
export class SimulatedBot {
	private seq = 0;

	private constructor(
		readonly spawn: SpawnRequest,
		readonly channel: SocketClient,
	) {}

	static async connect(spawn: SpawnRequest, lastAcked = 0): Promise<SimulatedBot> {
		const path = new URL(spawn.channel.url).pathname;
		const channel = await openSocket(path, { Authorization: `Bearer ${spawn.channel.token}` });
		channel.send({ type: "hello", last_acked_seq: lastAcked });
		await channel.waitFor("hello ack", (m) => m.type === "ack");
		const bot = new SimulatedBot(spawn, channel);
		bot.seq = lastAcked;
		return bot;
	}

	/** Sends one sequenced message and waits for the room's ack (it is durable then). */
	async send(message: Unsequenced, seq = ++this.seq): Promise<void> {
		this.channel.send({ ...message, seq });
		await this.channel.waitFor(`ack ${seq}`, (m) => m.type === "ack" && m.seq === seq);
	}

	status(status: string, extra: Record<string, unknown> = {}): Promise<void> {
		return this.send({ type: "status", status, timestamp: new Date().toISOString(), ...extra } as never);
	}

	commands(): RoomToBot[] {
		return this.channel.messages.filter((m) => m.type === "command") as RoomToBot[];
	}
}
