/**
 * The bot side of the bot channel (src/bot-channel/protocol.ts): one WebSocket to the
 * meeting's room. Every message gets the next seq and stays queued until the room acks it;
 * after a reconnect the bot says hello with the last acked seq and re-sends the rest in order.
 * A room that has ended the meeting (409 on the upgrade, or a close with
 * ROOM_CLOSE.meetingEnded), or has given the meeting to a newer attempt (a close with
 * ROOM_CLOSE.superseded), is not retried: the session is told, and the bot leaves the call.
 * While connected it pings every CHANNEL_PING_S: the room's lease counts a bot that stops as gone.
 */
import WebSocket from "ws";
import {
	type Act,
	type BotToRoom,
	CHANNEL_PING,
	CHANNEL_PING_S,
	CHANNEL_PONG,
	ROOM_CLOSE,
	RoomToBot,
} from "../../src/bot-channel/protocol.ts";

type Sequenced = Extract<BotToRoom, { seq: number }>;
/** A message before the channel numbers it. */
export type Outgoing = Sequenced extends infer M ? (M extends Sequenced ? Omit<M, "seq"> : never) : never;

export interface ChannelOptions {
	url: string;
	token: string;
	onCommand: (id: string, act: Act) => void;
	/** The room refused the token (401/403): nobody will ever receive this bot's reports. */
	onRejected?: (status: number) => void;
	/** The room has ended the meeting: nothing more will be accepted, and the bot should leave. */
	onMeetingEnded?: () => void;
	/** A newer attempt (another bot) holds the meeting now: this bot should leave. */
	onSuperseded?: () => void;
	log: (line: string) => void;
	/** Longest pause between reconnect attempts. */
	maxBackoffMs?: number;
}

export class BotChannel {
	private socket: WebSocket | null = null;
	private nextSeq = 1;
	private lastAcked = 0;
	private readonly unacked: Sequenced[] = [];
	private readonly seenCommands = new Set<string>();
	private closed = false;
	private backoffMs = 200;
	private readonly waiters = new Set<() => void>();
	private readonly options: ChannelOptions;

	constructor(options: ChannelOptions) {
		this.options = options;
	}

	start(): void {
		this.connect();
	}

	send(message: Outgoing): void {
		const sequenced = { ...message, seq: this.nextSeq++ } as Sequenced;
		this.unacked.push(sequenced);
		if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(sequenced));
	}

	get pending(): number {
		return this.unacked.length;
	}

	/** Resolve once everything sent so far is acked, or after `timeoutMs`. */
	drain(timeoutMs: number): Promise<boolean> {
		if (this.unacked.length === 0) return Promise.resolve(true);
		if (this.closed) return Promise.resolve(false);
		return new Promise((resolve) => {
			const done = (ok: boolean) => {
				clearTimeout(timer);
				this.waiters.delete(check);
				resolve(ok);
			};
			const check = () => {
				if (this.unacked.length === 0) done(true);
				// Nobody will ack the rest.
				else if (this.closed) done(false);
			};
			const timer = setTimeout(() => done(false), timeoutMs);
			this.waiters.add(check);
		});
	}

	close(): void {
		this.closed = true;
		this.socket?.close(1000, "bot finished");
		this.socket = null;
	}

	private connect(): void {
		if (this.closed) return;
		// The token goes in the header only: URLs end up in logs.
		const socket = new WebSocket(this.options.url, { headers: { Authorization: `Bearer ${this.options.token}` } });
		this.socket = socket;
		let keepalive: ReturnType<typeof setInterval> | undefined;
		socket.on("open", () => {
			this.backoffMs = 200;
			socket.send(JSON.stringify({ type: "hello", last_acked_seq: this.lastAcked } satisfies BotToRoom));
			for (const message of this.unacked) socket.send(JSON.stringify(message));
			keepalive = setInterval(() => {
				if (socket.readyState === WebSocket.OPEN) socket.send(CHANNEL_PING);
			}, CHANNEL_PING_S * 1000);
			keepalive.unref();
		});
		socket.on("message", (data) => this.receive(data.toString()));
		socket.on("unexpected-response", (_req, res) => {
			const status = res.statusCode ?? 0;
			res.resume();
			if (status === 409) {
				socket.terminate();
				return this.meetingEnded(`the room has no live meeting (${status})`);
			}
			if (status !== 401 && status !== 403) return socket.terminate();
			this.options.log(`channel: the room refused the token (${status})`);
			this.closed = true;
			socket.terminate();
			this.options.onRejected?.(status);
		});
		socket.on("error", (err) => this.options.log(`channel error: ${err.message}`));
		socket.on("close", (code) => {
			clearInterval(keepalive);
			if (this.socket !== socket || this.closed) return;
			if (code === ROOM_CLOSE.meetingEnded) return this.meetingEnded("the room ended the meeting");
			if (code === ROOM_CLOSE.superseded) return this.meetingEnded("a newer attempt took over the meeting (superseded)", true);
			this.socket = null;
			const wait = this.backoffMs;
			this.backoffMs = Math.min(this.backoffMs * 2, this.options.maxBackoffMs ?? 5_000);
			setTimeout(() => this.connect(), wait).unref();
		});
	}

	/** Stops for good: the room will not take this bot back. */
	private meetingEnded(why: string, superseded = false): void {
		if (this.closed) return;
		this.options.log(`channel: ${why}`);
		this.closed = true;
		this.socket = null;
		for (const waiter of [...this.waiters]) waiter();
		if (superseded) this.options.onSuperseded?.();
		else this.options.onMeetingEnded?.();
	}

	private receive(text: string): void {
		if (text === CHANNEL_PONG) return;
		let parsed: ReturnType<typeof RoomToBot.safeParse>;
		try {
			parsed = RoomToBot.safeParse(JSON.parse(text));
		} catch {
			this.options.log("channel: ignoring a frame that is not JSON");
			return;
		}
		if (!parsed.success) {
			this.options.log("channel: ignoring an unknown frame");
			return;
		}
		const message = parsed.data;
		if (message.type === "ack") {
			this.lastAcked = Math.max(this.lastAcked, message.seq);
			while (this.unacked.length > 0 && (this.unacked[0]?.seq ?? Infinity) <= this.lastAcked) this.unacked.shift();
			for (const waiter of [...this.waiters]) waiter();
			return;
		}
		// A command may be re-sent after a reconnect; run each id once.
		if (this.seenCommands.has(message.id)) return;
		this.seenCommands.add(message.id);
		this.options.onCommand(message.id, message.act);
	}
}
