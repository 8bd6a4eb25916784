import { DurableObject } from "cloudflare:workers";
import { BOT_ATTEMPT_HEADER, type ClaimRequest } from "../src/bot-channel/fleet";
import type { Act } from "../src/bot-channel/protocol";
import { ROOM_CLOSE } from "../src/bot-channel/protocol";
import type { RoomStart } from "../src/bots/launch";
import type { PublishResult } from "../src/bots/spawn-queue";
import type { MeetingRow } from "../src/db/schema";
import { type Env, intVar } from "../src/env";
import { isLive, type MeetingStatus } from "../src/meetings/status-machine";
import type { StatusStep } from "../src/meetings/status-writes";
import { liveFeed } from "../src/objects";
import { webhookEventsFor } from "../src/webhooks/envelope";
import { AutoJoin, type PlanRequest } from "./auto-join";
import { BotChannelInbox } from "./bot-channel-inbox";
import type { CopilotIngest, CopilotStart, LiveMeeting, ProcessOutcome } from "./room-copilot";
import { RoomCore } from "./room-core";
import { RoomLaunch } from "./room-launch";
import { type ClaimOutcome, RoomPlacement } from "./room-placement";
import type { MeetingEnd, StreamReader } from "./room-stream";
import { RoomStreamAccess } from "./room-stream-access";
import type { TimerName } from "./room-timers";
import type { TimerHandlers } from "./shared/alarm-timers";
import { closeQuietly } from "./shared/sockets";

export type { RoomState, TransitionAsk } from "./room-core";

/** What became of a command for the bot (see `command`). */
export type CommandOutcome = "relayed" | "no_live_bot" | "queue_full" | "queue_too_large";

/**
 * The RPC surface: what Workers and other objects call on a room's stub. Everything else the
 * room does is inside its RoomCore, which only its own helpers hold, so every move goes through
 * the serial queue. (fetch, alarm and the webSocket handlers are the runtime's entry points.)
 */
export const MEETING_ROOM_RPC = [
	"start",
	"claim",
	"stop",
	"command",
	"plan",
	"announce",
	"handOver",
	"recheckWatchers",
	"addSubscriber",
	"removeSubscriber",
	"meetingStream",
	"revalidateStreams",
	"copilotStart",
	"copilotProcess",
	"copilotIngest",
] as const;

/**
 * One per meeting: the authority for a live meeting. It owns the status machine's moves (each
 * written through to D1 before it is acknowledged), the bot channel, live fan-out, and the
 * timers (auto-join, watchdogs) on its one alarm.
 */
export class MeetingRoom extends DurableObject<Env> {
	readonly #room = new RoomCore(this.ctx, () => this.env);
	readonly #placement = new RoomPlacement(this.#room);
	readonly #launch = new RoomLaunch(this.#room, this.#placement);
	readonly #inbox = new BotChannelInbox(this.#room);
	readonly #streamAccess = new RoomStreamAccess(this.#room, this.#room.stream.keepaliveMs);
	readonly #autoJoin = new AutoJoin(this.#room, (start: RoomStart): Promise<PublishResult> => this.#launch.startPlanned(start));

	/** Takes over a meeting that has just become `requested` and puts out its spawn ticket. */
	start(start: RoomStart): Promise<void> {
		return this.#launch.start(start);
	}

	/** A bot host claims an attempt (POST /internal/bot-hosts/claims): only the first claimer of the current one gets it. */
	claim(request: ClaimRequest): Promise<ClaimOutcome> {
		return this.#room.serial(() => this.#placement.claim(request));
	}

	/** A plan-side step (written by the Worker): its watchers hear of it, and its webhook events go out. */
	announce(row: MeetingRow, step: StatusStep): Promise<void> {
		const events = webhookEventsFor({ status: step.from, reached_stage: null }, step.to, step.note);
		return this.#room.serial(() => this.#room.tell(row, step, events));
	}

	/** A user stop. Always wins: the meeting ends `completed` with `stopped`. */
	async stop(): Promise<{ status: MeetingStatus } | null> {
		const room = this.#room;
		const state = await room.state();
		if (!state || !isLive(state.machine.status)) return null;
		if (room.botSockets().length === 0 || state.machine.status === "requested") {
			await room.move({ to: "completed", actor: "user" });
		} else {
			await room.move({ to: "stopping", actor: "user" });
			await room.sendCommand({ action: "leave" });
			await room.timers.set("stop_deadline", Date.now() + intVar(this.env.BOT_STOP_GRACE_S, 20) * 1000);
		}
		return { status: (await room.state())?.machine.status ?? "completed" };
	}

	/** Relays a command to the bot, now or when it says hello again. */
	async command(act: Act): Promise<CommandOutcome> {
		const state = await this.#room.state();
		if (!state || !isLive(state.machine.status) || state.machine.status === "stopping") return "no_live_bot";
		const refusal = await this.#room.sendCommand(act);
		return refusal === null ? "relayed" : refusal === "too_many" ? "queue_full" : "queue_too_large";
	}

	/** Plans (or re-plans, or cancels) auto-join for a scheduled meeting. */
	plan(request: PlanRequest): Promise<void> {
		return this.#autoJoin.plan(request);
	}

	/** A new meeting on the same link: everyone watching this one follows it there. */
	async handOver(toMeetingId: number): Promise<void> {
		const fromMeetingId = (await this.#room.state())?.meetingId;
		if (!fromMeetingId) return;
		for (const userId of await this.#room.fanout.watchers()) {
			const feed = liveFeed(this.env, userId);
			if (!(await feed.follow(fromMeetingId, toMeetingId))) await this.#room.fanout.remove(userId);
		}
	}

	/** The meeting's workspace binding changed: each watcher and stream reader keeps it only if they may still read it. */
	async recheckWatchers(meetingId: number): Promise<void> {
		await this.#streamAccess.revalidate(meetingId);
		for (const userId of await this.#room.fanout.watchers()) await liveFeed(this.env, userId).revalidate([meetingId]);
	}

	async addSubscriber(userId: number): Promise<void> {
		await this.#room.fanout.add(userId);
	}

	async removeSubscriber(userId: number): Promise<void> {
		await this.#room.fanout.remove(userId);
	}

	/**
	 * The meeting's SSE stream, from after `lastEventId` (or its recent events), then live, until
	 * the meeting's end. The Worker checked the reader; it keeps reading while its access lasts.
	 * `ended`: the record is terminal; a meeting that ended before its room logged an end (or
	 * without a room) gets its `meeting-end` now, or, when it has a copilot, after the copilot's
	 * final beat (logged once either way).
	 */
	async meetingStream(
		meetingId: number,
		reader: StreamReader,
		lastEventId: number | null,
		ended: MeetingEnd | null = null,
	): Promise<Response> {
		if (ended && !(await this.#room.copilot.meetingEnded(ended))) this.#room.stream.end(ended);
		return this.#streamAccess.open(meetingId, lastEventId, reader);
	}

	/** A user's access may have ended (LiveFeed.revalidate): ends their streams that lost it; how many of theirs stay open. */
	revalidateStreams(meetingId: number, userId: number): Promise<number> {
		return this.#streamAccess.revalidate(meetingId, userId);
	}

	/** Starts (or touches) the live copilot of this meeting; null when it is another user's. */
	copilotStart(start: CopilotStart): Promise<LiveMeeting | null> {
		return this.#room.serial(() => this.#room.copilot.start(start));
	}

	/** Processing on (resumes from the cursor) or off (freezes it); null when no copilot was started here. */
	copilotProcess(on: boolean): Promise<ProcessOutcome | null> {
		return this.#room.serial(() => this.#room.copilot.process(on));
	}

	/** How the transcript reaches the copilot, for relay-health. */
	copilotIngest(): Promise<CopilotIngest> {
		return this.#room.copilot.ingest();
	}

	/**
	 * The bot channel upgrade, already authenticated by the Worker with the meeting's token, whose
	 * attempt it passes on. A bot of any attempt but the claimed current one gets 409: it leaves
	 * the call and does not reconnect.
	 */
	override async fetch(request: Request): Promise<Response> {
		if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
		const attempt = Number(request.headers.get(BOT_ATTEMPT_HEADER));
		return this.#room.serial(async () => {
			const state = await this.#room.state();
			if (!state || !isLive(state.machine.status)) return new Response("no live meeting", { status: 409 });
			if (attempt !== state.attempt || !state.claim) return new Response("this bot's attempt was superseded", { status: 409 });
			for (const old of this.#room.botSockets()) old.close(ROOM_CLOSE.replaced, "replaced by a newer connection");
			const pair = new WebSocketPair();
			this.#room.acceptBot(pair[1], attempt);
			this.#inbox.channelOpened();
			if (!state.connected) await this.#room.saveState({ ...state, connected: true });
			await this.#room.timers.clear("watchdog");
			return new Response(null, { status: 101, webSocket: pair[0] });
		});
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		if (typeof data !== "string") return;
		// Live frames go out now; storing and acking wait their turn.
		const message = this.#inbox.read(data);
		this.#inbox.deliverAhead(socket, message);
		await this.#room.serial(() => this.#inbox.receive(socket, data, message));
	}

	override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		closeQuietly(socket, code, reason);
		await this.#botGone(socket);
	}

	override async webSocketError(socket: WebSocket): Promise<void> {
		await this.#botGone(socket);
	}

	/** The current bot that dropped its channel gets a grace period to come back before its host counts as lost. */
	async #botGone(socket: WebSocket): Promise<void> {
		const others = this.#room.botSockets().filter((s) => s !== socket && s.readyState === WebSocket.OPEN);
		const state = await this.#room.state();
		if (others.length > 0 || !state || !isLive(state.machine.status)) return;
		if (this.#room.attemptOf(socket) !== state.attempt) return;
		await this.#room.timers.set("watchdog", Date.now() + intVar(this.env.BOT_RECONNECT_GRACE_S, 30) * 1000);
	}

	/** Runs each due timer's action (shared/alarm-timers.ts: a timer goes once its action succeeded, else it retries). */
	override async alarm(): Promise<void> {
		await this.#room.timers.fire(this.#timerActions);
	}

	readonly #timerActions: TimerHandlers<TimerName> = {
		placement: async () => {
			if ((await this.#room.serial(() => this.#placement.placementExpired())) === "handed_back")
				await this.#autoJoin.placementTimedOut(`No bot host took the meeting within ${intVar(this.env.BOT_PLACEMENT_TIMEOUT_S, 180)} s`);
		},
		watchdog: () => this.#room.serial(() => this.#placement.hostLost()),
		stop_deadline: () => this.#room.move({ to: "completed", actor: "user" }),
		auto_join: () => this.#autoJoin.fire(),
		notify: () => this.#room.serial(() => this.#room.notices.drain()),
		// Outside the serial queue: the final beat waits on the model, and the meeting is over.
		copilot_final: () => this.#room.copilot.finish(),
	};
}
