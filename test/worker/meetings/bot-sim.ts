import { env, runInDurableObject, SELF } from "cloudflare:test";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import type { RoomState } from "../../../durable-objects/meeting-room/context";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import type { SpawnTicket } from "../../../src/bot-channel/fleet";
import type { BotToRoom, RoomToBot, SpawnRequest } from "../../../src/bot-channel/protocol";
import { signSpawnTicket } from "../../../src/bot-channel/spawn-ticket";
import { eventually, until } from "../../shared/wait";
import { ADMIN, roomOf } from "../support";
import { received } from "../webhooks/receiver";

export const QUEUE_MESSAGES = `${new URL(env.SPAWN_QUEUE_URL ?? "http://unset").pathname}/messages`;

/** The spawn tickets published for a meeting id (the receiver stands in for the queue's HTTP API). */
export async function ticketsFor(meetingId: number): Promise<SpawnTicket[]> {
	return (await received(QUEUE_MESSAGES))
		.map((r) => (JSON.parse(r.body) as { body: SpawnTicket }).body)
		.filter((t) => t.meeting_id === meetingId);
}

/**
 * Each test file has its own D1 but shares the receiver, so meeting ids repeat across files.
 * A file that inspects published tickets (or scripts the queue's answers by meeting id) first
 * moves its meetings' ids to a random range of their own; the next meeting's id is returned.
 */
export async function ownMeetingIds(): Promise<number> {
	// Past every id already used (AUTOINCREMENT never goes back below the highest), by a random jump.
	const used = await env.DB.prepare(
		"SELECT max(coalesce((SELECT max(id) FROM meetings), 0), coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'meetings'), 0)) AS n",
	).first<{ n: number }>();
	const base = (used?.n ?? 0) + 1_000_000 + ((crypto.getRandomValues(new Uint32Array(1))[0] ?? 0) % 1_000_000_000);
	const updated = await env.DB.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'meetings'").bind(base).run();
	if (updated.meta.changes === 0) await env.DB.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('meetings', ?)").bind(base).run();
	return base + 1;
}

/** The text a queue publish for this meeting's attempt contains (for a scripted answer's `match`). */
export const ticketMatch = (meetingId: number, attempt = 1) => `"meeting_id":${meetingId},"attempt":${attempt},`;

export type ClaimAnswer = { status: number; body: Record<string, unknown> };

/** Mints a bot host's credential as an admin does (POST /admin/bot-hosts); minting again rotates it. */
export async function hostCredential(hostId = "test-host"): Promise<string> {
	const res = await SELF.fetch("https://gateway.test/admin/bot-hosts", {
		method: "POST",
		headers: { ...ADMIN, "content-type": "application/json" },
		body: JSON.stringify({ host_id: hostId }),
	});
	if (res.status !== 201) throw new Error(`mint bot host credential: ${res.status} ${await res.text()}`);
	return ((await res.json()) as { credential: string }).credential;
}

/**
 * The ticket the room published for this attempt, as the queue (the receiver) got it: the one
 * whose id the room keeps. Undefined when the room waits on no ticket for that attempt.
 */
export async function publishedTicket(meetingId: number, attempt = 1): Promise<SpawnTicket | undefined> {
	const room = () => runInDurableObject(roomOf(meetingId), (_room: MeetingRoom, state) => state.storage.get<RoomState>(ROOM_KEYS.state));
	const first = await room();
	if (!first || first.attempt !== attempt) return undefined;
	// POST /bots answers before the room has published: wait for the ticket that is on its way.
	return eventually(`the ticket of meeting ${meetingId} attempt ${attempt}`, async () => {
		const id = (await room())?.ticketId;
		return id ? (await ticketsFor(meetingId)).find((t) => t.ticket_id === id && t.attempt === attempt) : undefined;
	});
}

/** A ticket signed with the deployment's key that no room published: signed, but not the one a room waits on. */
export const unpublishedTicket = (meetingId: number, attempt = 1, notAfterMs = Date.now() + 600_000) =>
	signSpawnTicket(String(env.SECRETS_KEY), { meeting_id: meetingId, attempt, not_after: new Date(notAfterMs).toISOString() });

/**
 * Stands in for the host's last report, with room for one claim (a host claims only the free
 * slots it reported, src/bot-channel/host-slots.ts); the answer puts the host's report back as
 * it was, so the reports other tests read (placement notes, metrics) are left as they found them.
 */
export async function reportedRoom(hostId: string): Promise<() => Promise<void>> {
	type Row = { report: string; reported_at: string; claims_since_report: number };
	const before = await env.DB.prepare("SELECT report, reported_at, claims_since_report FROM bot_hosts WHERE host_id = ?")
		.bind(hostId)
		.first<Row>();
	const upsert = `INSERT INTO bot_hosts (host_id, report, reported_at, claims_since_report) VALUES (?, ?, ?, ?)
		ON CONFLICT (host_id) DO UPDATE SET report = excluded.report, reported_at = excluded.reported_at, claims_since_report = excluded.claims_since_report`;
	const report = {
		host_id: hostId,
		version: "test",
		slots: 1,
		running: 0,
		launching: 0,
		free: 1,
		draining: false,
		mem_available_mb: 4096,
		load1: 0,
	};
	await env.DB.prepare(upsert).bind(hostId, JSON.stringify(report), new Date().toISOString(), 0).run();
	return async () => {
		if (before) await env.DB.prepare(upsert).bind(hostId, before.report, before.reported_at, before.claims_since_report).run();
		else await env.DB.prepare("DELETE FROM bot_hosts WHERE host_id = ?").bind(hostId).run();
	};
}

/**
 * Plays a bot host: claims an attempt through SELF (which reaches this file's room) with the
 * ticket the room published for it (or, when it published none, one it never saw) and the
 * host's own credential (minted for it unless given), having reported room for it first
 * (`reported: false` claims on whatever the host last reported).
 */
export async function claimAttempt(
	meetingId: number,
	attempt = 1,
	hostId = "test-host",
	credential?: string,
	ticket?: SpawnTicket,
	{ reported = true }: { reported?: boolean } = {},
): Promise<ClaimAnswer> {
	const presented = ticket ?? (await publishedTicket(meetingId, attempt)) ?? (await unpublishedTicket(meetingId, attempt));
	const putBack = reported ? await reportedRoom(hostId) : null;
	try {
		const res = await SELF.fetch("https://gateway.test/internal/bot-hosts/claims", {
			method: "POST",
			headers: { "content-type": "application/json", authorization: `Bearer ${credential ?? (await hostCredential(hostId))}` },
			body: JSON.stringify({ meeting_id: meetingId, attempt, host_id: hostId, version: "test", ticket: presented }),
		});
		return { status: res.status, body: (await res.json()) as Record<string, unknown> };
	} finally {
		await putBack?.();
	}
}

/**
 * Claims are given once, so the spawn request a test already claimed is kept (per record: ids
 * repeat across a file's tests, each with its own storage).
 */
const claimed = new Map<string, SpawnRequest>();

/** The spawn request of a meeting's attempt, claimed as a host would (or the one already claimed). */
export async function spawnRequestFor(meetingId: number, attempt = 1): Promise<SpawnRequest> {
	const row = await env.DB.prepare("SELECT native_meeting_id, created_at FROM meetings WHERE id = ?")
		.bind(meetingId)
		.first<{ native_meeting_id: string | null; created_at: string }>();
	const key = `${meetingId}:${attempt}:${row?.native_meeting_id}:${row?.created_at}`;
	const known = claimed.get(key);
	if (known) return known;
	const spawn = await eventually(`claim of meeting ${meetingId}`, async () => {
		const answer = await claimAttempt(meetingId, attempt);
		if (answer.status === 200) return answer.body as unknown as SpawnRequest;
		if (answer.status !== 409 || answer.body.reason !== "ended")
			throw new Error(`claim answered ${answer.status}: ${JSON.stringify(answer.body)}`);
		return undefined;
	});
	claimed.set(key, spawn);
	return spawn;
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

	/**
	 * A /ws ping answered: what the socket's LiveFeed was given before the ping reached it is in
	 * `messages` now, so a test can assert that something did not arrive without waiting a fixed time.
	 */
	async pingPong(): Promise<void> {
		const pongs = () => this.messages.filter((m) => m.type === "pong").length;
		const before = pongs();
		this.send({ action: "ping" });
		await until("pong", () => pongs() > before);
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
