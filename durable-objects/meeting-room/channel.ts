import { BOT_ATTEMPT_HEADER } from "../../src/bot-channel/fleet";
import { CHANNEL_PING, CHANNEL_PONG, ROOM_CLOSE } from "../../src/bot-channel/protocol";
import { isLive } from "../../src/meetings/status-machine";
import { setting } from "../../src/settings/deployment-defaults";
import { closeQuietly } from "../shared/sockets";
import type { RoomContext } from "./context";
import { BotChannelInbox, type InboxHost } from "./inbox";
import { type LiveWebhooksHost, RoomLiveWebhooks } from "./live-webhooks";

/** What the bot channel uses of the room (and hands its inbox). */
export type ChannelHost = InboxHost & LiveWebhooksHost & Pick<RoomContext, "acceptBot" | "lastPing" | "serial" | "timers">;

/**
 * The bot channel's socket, from its upgrade to its close (docs/bot-channel.md): who may open
 * it, what happens to each message (the inbox), and the grace a dropped bot gets to come back.
 */
export class RoomBotChannel {
	readonly #inbox: BotChannelInbox;
	/** The meeting's live webhook events, made from what the bot says (its batch timer is the alarm's). */
	readonly liveWebhooks: RoomLiveWebhooks;

	constructor(private readonly room: ChannelHost) {
		this.liveWebhooks = new RoomLiveWebhooks(room);
		this.#inbox = new BotChannelInbox(room, this.liveWebhooks);
	}

	/** The bot channel upgrade, already authenticated by the Worker with the meeting's token, whose attempt it passes on. */
	upgrade(request: Request): Promise<Response> {
		if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
			return Promise.resolve(new Response("expected a WebSocket", { status: 426 }));
		return this.open(Number(request.headers.get(BOT_ATTEMPT_HEADER)));
	}

	/**
	 * The upgrade of the claimed current attempt's bot; any other gets 409: it leaves the call
	 * and does not reconnect.
	 */
	open(attempt: number): Promise<Response> {
		const room = this.room;
		return room.serial(async () => {
			const state = await room.state();
			if (!state || !isLive(state.machine.status)) return new Response("no live meeting", { status: 409 });
			if (attempt !== state.attempt || !state.claim) return new Response("this bot's attempt was superseded", { status: 409 });
			for (const old of room.botSockets()) old.close(ROOM_CLOSE.replaced, "replaced by a newer connection");
			const pair = new WebSocketPair();
			room.acceptBot(pair[1], attempt);
			this.#inbox.channelOpened();
			if (!state.connected) await room.saveState({ ...state, connected: true });
			await room.timers.clear("watchdog");
			await room.timers.set("lease", Date.now() + this.#leaseMs);
			return new Response(null, { status: 101, webSocket: pair[0] });
		});
	}

	/** A frame on the channel: a keepalive the runtime did not answer is answered here; a message is handled. */
	async received(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		if (data === CHANNEL_PING) socket.send(CHANNEL_PONG);
		else if (typeof data === "string") await this.message(socket, data);
	}

	/** The bot's socket closed: closed on this side too, then the grace for a dropped bot. */
	async closed(socket: WebSocket, code: number, reason: string): Promise<void> {
		closeQuietly(socket, code, reason);
		await this.gone(socket);
	}

	/** A message from the bot: its live frames go out now; storing and acking wait their turn. */
	async message(socket: WebSocket, data: string): Promise<void> {
		const message = this.#inbox.read(data);
		this.#inbox.deliverAhead(socket, message);
		await this.room.serial(() => this.#inbox.receive(socket, data, message));
	}

	/** The current bot that dropped its channel gets a grace period to come back before its host counts as lost. */
	async gone(socket: WebSocket): Promise<void> {
		const room = this.room;
		const others = room.botSockets().filter((s) => s !== socket && s.readyState === WebSocket.OPEN);
		const state = await room.state();
		if (others.length > 0 || !state || !isLive(state.machine.status)) return;
		if (room.attemptOf(socket) !== state.attempt) return;
		await this.#startGrace();
	}

	/**
	 * The lease (docs/status-machine.md#timers-that-move-a-meeting): a connected bot's channel must
	 * still be open, and a bot that pings must have pinged within BOT_LEASE_S. A socket can vanish
	 * without a close the room hears (the stack or the bot's host stopped, a machine gone): then
	 * the reconnect grace starts here, as for a close, and the watchdog names the host lost.
	 */
	async leaseDue(): Promise<void> {
		const room = this.room;
		const state = await room.state();
		// Before the bot connects, the claim's watchdog is running; after the end, nothing is.
		if (!state || !isLive(state.machine.status) || !state.claim || !state.connected) return;
		const now = Date.now();
		const open = room.botSockets().filter((s) => s.readyState === WebSocket.OPEN && room.attemptOf(s) === state.attempt);
		// A bot of an earlier release never pings: an open channel is all it can show.
		const heard = open.filter((s) => {
			const pinged = room.lastPing(s);
			return pinged === null || now - pinged <= this.#leaseMs;
		});
		if (heard.length > 0) {
			await room.timers.set("lease", now + this.#leaseMs);
			return;
		}
		// A bot that is still there reconnects and resends; one that is gone never answers the close.
		for (const socket of open) socket.close(ROOM_CLOSE.resend, `no ping from the bot for more than ${this.#leaseMs / 1000} s`);
		await this.#startGrace();
	}

	/** The reconnect grace, unless it already runs (a second sign of the same loss does not extend it). */
	async #startGrace(): Promise<void> {
		const timers = this.room.timers;
		const due = Date.now() + setting(this.room.env, "BOT_RECONNECT_GRACE_S") * 1000;
		const running = await timers.due("watchdog");
		if (running === undefined || running > due) await timers.set("watchdog", due);
	}

	get #leaseMs(): number {
		return setting(this.room.env, "BOT_LEASE_S") * 1000;
	}
}
