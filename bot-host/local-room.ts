/**
 * A meeting's room on the bot channel, on this machine: a real `ws` server that checks the
 * token, records every message the bot sends, acks it, and can send commands. Its HTTP side
 * takes screenshots as the real room does (PUT <screenshotUrl>/<name>, Bearer channel token,
 * image/jpeg or image/png up to SCREENSHOT_MAX_BYTES, 201). The bot host's tests talk to their
 * bots through it, and `npm run canary` runs one bot against a real meeting with it, no gateway.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { type WebSocket, WebSocketServer } from "ws";
import { SCREENSHOT_MAX_BYTES, ScreenshotName } from "../src/bot-channel/help-report.ts";
import { type Act, BotToRoom, CHANNEL_PING, CHANNEL_PONG, ROOM_CLOSE } from "../src/bot-channel/protocol.ts";

export interface StoredScreenshot {
	contentType: string;
	bytes: Buffer;
}

export interface RoomConnection {
	meetingId: number;
	authorization: string | undefined;
	queryToken: string | null;
}

export class LocalRoom {
	private readonly byMeeting = new Map<number, BotToRoom[]>();
	private readonly pingCount = new Map<number, number>();
	private readonly arrivals = new Map<number, number[]>();
	readonly connections: RoomConnection[] = [];
	/** Ack sequenced messages (turn off to test re-sending). */
	acking = true;
	private readonly server: WebSocketServer;
	private readonly sockets = new Map<WebSocket, number>();
	private readonly listeners = new Set<() => void>();
	private commandSeq = 0;

	private readonly refusals: Map<number, number>;
	private readonly http: http.Server;
	private readonly shots = new Map<number, Map<string, StoredScreenshot>>();
	/** Answer screenshot uploads with this status instead of storing them (a room that cannot take them). */
	screenshotRefusal: number | null = null;

	private constructor(server: WebSocketServer, httpServer: http.Server, refusals: Map<number, number>) {
		this.server = server;
		this.http = httpServer;
		this.refusals = refusals;
		httpServer.on("request", (req: IncomingMessage, res: ServerResponse) => {
			this.takeScreenshot(req, res).catch(() => res.writeHead(500).end());
		});
		server.on("connection", (socket: WebSocket, req: IncomingMessage) => {
			const url = new URL(req.url ?? "/", "ws://room");
			const meetingId = Number(url.pathname.split("/")[2]);
			this.connections.push({ meetingId, authorization: req.headers.authorization, queryToken: url.searchParams.get("token") });
			this.sockets.set(socket, meetingId);
			socket.on("close", () => this.sockets.delete(socket));
			socket.on("message", (data) => {
				// The keepalive, answered as the real room's runtime answers it, outside the messages.
				if (data.toString() === CHANNEL_PING) {
					this.pingCount.set(meetingId, this.pings(meetingId) + 1);
					socket.send(CHANNEL_PONG);
					return;
				}
				const message = BotToRoom.parse(JSON.parse(data.toString()));
				this.received(meetingId).push(message);
				this.arrivedAt(meetingId).push(Date.now());
				if (this.acking && "seq" in message) socket.send(JSON.stringify({ type: "ack", seq: message.seq }));
				for (const listener of [...this.listeners]) listener();
			});
		});
	}

	/** `token`: the only channel token accepted (header or query), as the real room checks it. */
	static async start(token?: string): Promise<LocalRoom> {
		const refusals = new Map<number, number>();
		const httpServer = http.createServer();
		const server = new WebSocketServer({
			server: httpServer,
			verifyClient: (info: { req: IncomingMessage }, answer: (ok: boolean, status?: number) => void) => {
				const url = new URL(info.req.url ?? "/", "ws://room");
				const query = url.searchParams.get("token");
				if (token && info.req.headers.authorization !== `Bearer ${token}` && query !== token) return answer(false, 401);
				const refusal = refusals.get(Number(url.pathname.split("/")[2]));
				if (refusal) return answer(false, refusal);
				answer(true);
			},
		});
		await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", () => resolve()));
		const room = new LocalRoom(server, httpServer, refusals);
		room.token = token ?? null;
		return room;
	}

	private token: string | null = null;

	/** Where this meeting's bot uploads screenshots (`SpawnRequest.screenshot_upload_url`). */
	screenshotUrl(meetingId: number): string {
		return `http://127.0.0.1:${this.port}/meetings/${meetingId}/screenshots`;
	}

	/** The screenshots this meeting's bot uploaded, by name. */
	screenshots(meetingId: number): Map<string, StoredScreenshot> {
		let stored = this.shots.get(meetingId);
		if (!stored) {
			stored = new Map();
			this.shots.set(meetingId, stored);
		}
		return stored;
	}

	/** PUT /meetings/<id>/screenshots/<name>, checked as the real room checks it. */
	private async takeScreenshot(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const parts = new URL(req.url ?? "/", "http://room").pathname.split("/").filter(Boolean);
		const meetingId = Number(parts[1]);
		const name = parts[3] ?? "";
		if (req.method !== "PUT" || parts[0] !== "meetings" || parts[2] !== "screenshots" || parts.length !== 4)
			return void res.writeHead(404).end();
		if (this.token && req.headers.authorization !== `Bearer ${this.token}`) return void res.writeHead(401).end();
		if (!ScreenshotName.safeParse(name).success) return void res.writeHead(422).end();
		const contentType = req.headers["content-type"] ?? "";
		if (contentType !== "image/jpeg" && contentType !== "image/png") return void res.writeHead(415).end();
		const chunks: Buffer[] = [];
		let size = 0;
		for await (const chunk of req) {
			size += (chunk as Buffer).length;
			if (size > SCREENSHOT_MAX_BYTES) return void res.writeHead(413).end();
			chunks.push(chunk as Buffer);
		}
		if (this.screenshotRefusal !== null) return void res.writeHead(this.screenshotRefusal).end();
		this.screenshots(meetingId).set(name, { contentType, bytes: Buffer.concat(chunks) });
		res.writeHead(201).end();
	}

	private get port(): number {
		const address = this.http.address();
		return typeof address === "object" && address ? address.port : 0;
	}

	/** From now on the room answers this meeting's channel upgrades with `status` (the real room: 409, no live meeting). */
	refuseUpgrades(meetingId: number, status: number): void {
		this.refusals.set(meetingId, status);
	}

	/** Lets this meeting's channel upgrades through again. */
	allowUpgrades(meetingId: number): void {
		this.refusals.delete(meetingId);
	}

	/** Ends the meeting as the real room does when it tears one down: closes the channel with ROOM_CLOSE.meetingEnded. */
	endMeeting(meetingId: number): void {
		for (const [socket, id] of this.sockets) if (id === meetingId) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
	}

	/** Gives the meeting to a newer attempt, as the real room does: closes this bot's channel with ROOM_CLOSE.superseded. */
	supersede(meetingId: number): void {
		for (const [socket, id] of this.sockets) if (id === meetingId) socket.close(ROOM_CLOSE.superseded, "superseded");
	}

	url(meetingId: number): string {
		return `ws://127.0.0.1:${this.port}/meetings/${meetingId}/bot`;
	}

	/** Keepalive pings a meeting's bot sent (docs/bot-channel.md#keepalive). */
	pings(meetingId: number): number {
		return this.pingCount.get(meetingId) ?? 0;
	}

	/** Everything the bot of this meeting sent, in order (hellos and re-sends included). */
	received(meetingId: number): BotToRoom[] {
		let list = this.byMeeting.get(meetingId);
		if (!list) {
			list = [];
			this.byMeeting.set(meetingId, list);
		}
		return list;
	}

	/** Epoch ms at which each received message arrived, parallel to `received`. */
	arrivedAt(meetingId: number): number[] {
		let list = this.arrivals.get(meetingId);
		if (!list) {
			list = [];
			this.arrivals.set(meetingId, list);
		}
		return list;
	}

	/** Resolves when `check` holds for what the meeting's bot has sent (re-checked on every message). */
	until<T>(meetingId: number, check: (received: BotToRoom[]) => T | undefined | false): Promise<T> {
		return new Promise((resolve) => {
			const test = () => {
				const result = check(this.received(meetingId));
				if (result) {
					this.listeners.delete(test);
					resolve(result);
				}
			};
			this.listeners.add(test);
			test();
		});
	}

	command(meetingId: number, act: Act): void {
		const frame = JSON.stringify({ type: "command", id: `cmd-${++this.commandSeq}`, act });
		for (const [socket, id] of this.sockets) if (id === meetingId) socket.send(frame);
	}

	dropConnections(meetingId: number): void {
		for (const [socket, id] of this.sockets) if (id === meetingId) socket.terminate();
	}

	close(): Promise<void> {
		for (const socket of this.sockets.keys()) socket.terminate();
		this.http.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => this.http.close(() => resolve())));
	}
}
