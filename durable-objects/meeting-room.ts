import { DurableObject } from "cloudflare:workers";
import { and, eq, inArray } from "drizzle-orm";
import { type Act, MAX_QUEUED_COMMANDS, ROOM_CLOSE, type RoomToBot } from "../src/bot-channel/protocol";
import { botEndpoints } from "../src/bots/bot-endpoints";
import { type BotHostResult, spawnBot, stopBot } from "../src/bots/bot-host-client";
import type { RoomStart } from "../src/bots/launch";
import { meetings } from "../src/db/schema";
import { type Env, intVar } from "../src/env";
import { type MeetingRef, meetingStatusMessage } from "../src/live/feed-messages";
import { db, updateIfStatus } from "../src/meetings/meeting-store";
import {
	type Actor,
	type CompletionReason,
	type FailureStage,
	initialState,
	isLive,
	isTerminal,
	LIVE_STATUSES,
	type MeetingState,
	type MeetingStatus,
	transition,
} from "../src/meetings/status-machine";
import { accountObject, liveFeed, meetingRoom } from "../src/objects";
import { webhookEventsFor } from "../src/webhooks/envelope";
import { AutoJoin, type PlanRequest } from "./auto-join";
import { BotChannelInbox } from "./bot-channel-inbox";
import { RoomFanout } from "./room-fanout";
import { RoomNotices } from "./room-notices";
import { RoomTimers, type TimerName } from "./room-timers";
import { SerialQueue } from "./serial-queue";

/** What the room keeps about its meeting while it is the authority for it. */
export interface RoomState {
	meetingId: number;
	userId: number;
	platform: string;
	nativeMeetingId: string | null;
	/** The bot-slot key held while a bot runs; released when the meeting ends. */
	link: string | null;
	machine: MeetingState;
	startTime: string | null;
	lastAppliedSeq: number;
}

export interface TransitionAsk {
	to: MeetingStatus;
	actor: Actor;
	completion_reason?: CompletionReason;
	failure_stage?: FailureStage;
	reason?: string;
}

/** What became of a command for the bot (see `command`). */
export type CommandOutcome = "relayed" | "no_live_bot" | "queue_full";

/**
 * One per meeting: the authority for a live meeting. It owns the status machine's moves (each
 * written through to D1 before it is acknowledged), the bot channel, live fan-out, and the
 * timers (auto-join, watchdogs) on its one alarm.
 */
export class MeetingRoom extends DurableObject<Env> {
	readonly timers = new RoomTimers(this.ctx.storage);
	readonly fanout = new RoomFanout(this.ctx.storage, this.env);
	private readonly notices = new RoomNotices(this.ctx.storage, this.timers, (userId) => accountObject(this.env, userId));
	private readonly inbox = new BotChannelInbox(this);
	private readonly autoJoin = new AutoJoin(this);
	private readonly queue = new SerialQueue();

	get environment(): Env {
		return this.env;
	}

	get storage(): DurableObjectStorage {
		return this.ctx.storage;
	}

	/** Runs room work one piece at a time, across awaits, so moves never interleave. */
	serial<T>(work: () => Promise<T>): Promise<T> {
		return this.queue.run(work);
	}

	async state(): Promise<RoomState | undefined> {
		return this.ctx.storage.get<RoomState>("room");
	}

	async saveState(state: RoomState): Promise<void> {
		await this.ctx.storage.put("room", state);
	}

	ref(state: RoomState): MeetingRef {
		return { id: state.meetingId, platform: state.platform, native_id: state.nativeMeetingId };
	}

	/** Takes over a meeting that has just become `requested` and spawns its bot. */
	async start(start: RoomStart): Promise<void> {
		await this.takeOver(start, true);
		this.ctx.waitUntil(this.spawn(start));
	}

	/**
	 * Auto-join's start: the spawn is awaited, and a spawn the bot host refuses hands the meeting
	 * back to its plan (`scheduled`, slot released) instead of failing it, so auto-join can set
	 * `data.auto_join_error` and retry (the spec's auto-join row). The step to `requested` is
	 * reported only once the bot host took the bot.
	 */
	async startPlanned(start: RoomStart): Promise<BotHostResult> {
		await this.takeOver(start, false);
		const result = await this.requestSpawn(start);
		if (!result.ok && (await this.serial(() => this.giveBack(start)))) return result;
		await this.serial(() => this.notifyClaim(start));
		return { ok: true };
	}

	/** The step to `requested` raises its webhook like any other step. */
	private async notifyClaim(start: RoomStart): Promise<void> {
		const step = { from: start.previousStatus, to: "requested" as const, actor: start.actor, at: start.meeting.updatedAt };
		await this.ctx.storage.put(await this.notices.prepare(start.meeting, ["meeting.status_change"], step));
		await this.sendNotices();
	}

	private async takeOver(start: RoomStart, notify: boolean): Promise<void> {
		await this.serial(async () => {
			const m = start.meeting;
			const state: RoomState = {
				meetingId: m.id,
				userId: m.userId,
				platform: m.platform,
				nativeMeetingId: m.nativeMeetingId,
				link: start.link,
				machine: initialState("requested"),
				startTime: null,
				lastAppliedSeq: 0,
			};
			await this.saveState(state);
			await this.ctx.storage.delete("queuedCommands");
			await this.timers.clear("auto_join", "stop_deadline");
			await this.timers.set("watchdog", Date.now() + intVar(this.env.BOT_REPORT_TIMEOUT_S, 60) * 1000);
			if (start.previousMeetingId) await meetingRoom(this.env, start.previousMeetingId).handOver(m.id);
			await this.fanout.publish(m.id, meetingStatusMessage(this.ref(state), m.userId, "requested", null));
			if (notify) await this.notifyClaim(start);
		});
	}

	/** Undoes a takeover whose bot never got going; false when the meeting has moved on since. */
	private async giveBack(start: RoomStart): Promise<boolean> {
		const state = await this.state();
		if (state?.machine.status !== "requested") return false;
		const back = start.previousStatus ?? "scheduled";
		if (!(await updateIfStatus(this.env, state.meetingId, ["requested"], { status: back }))) return false;
		await this.ctx.storage.delete("room");
		await this.timers.clear("watchdog");
		if (state.link) await accountObject(this.env, state.userId).releaseBotSlot(state.link);
		await this.fanout.publish(state.meetingId, meetingStatusMessage(this.ref(state), state.userId, back, null));
		// A spawn that timed out may still bring a bot up: tell the host to drop it.
		this.ctx.waitUntil(stopBot(this.env, state.meetingId));
		return true;
	}

	private async spawn(start: RoomStart): Promise<void> {
		const result = await this.requestSpawn(start);
		if (!result.ok) {
			await this.move({ to: "failed", actor: "system", completion_reason: "join_failure", reason: result.detail });
		}
	}

	private async requestSpawn(start: RoomStart): Promise<BotHostResult> {
		return spawnBot(this.env, { ...start.spawn, ...(await botEndpoints(this.env, start.meeting.id)) });
	}

	/** A user stop. Always wins: the meeting ends `completed` with `stopped`. */
	async stop(): Promise<{ status: MeetingStatus } | null> {
		const state = await this.state();
		if (!state || !isLive(state.machine.status)) return null;
		const botConnected = this.ctx.getWebSockets("bot").length > 0;
		if (!botConnected || state.machine.status === "requested") {
			await this.move({ to: "completed", actor: "user" });
		} else {
			await this.move({ to: "stopping", actor: "user" });
			await this.sendCommand({ action: "leave" });
			await this.timers.set("stop_deadline", Date.now() + intVar(this.env.BOT_STOP_GRACE_S, 20) * 1000);
		}
		return { status: (await this.state())?.machine.status ?? "completed" };
	}

	/** Relays a command to the bot, now or when it says hello again. */
	async command(act: Act): Promise<CommandOutcome> {
		const state = await this.state();
		if (!state || !isLive(state.machine.status) || state.machine.status === "stopping") return "no_live_bot";
		return (await this.sendCommand(act)) ? "relayed" : "queue_full";
	}

	/**
	 * Sends now when the bot is connected, otherwise keeps it for when it says hello again; false
	 * when MAX_QUEUED_COMMANDS already wait (one storage value holds them, and it must stay small).
	 */
	async sendCommand(act: Act): Promise<boolean> {
		const message: RoomToBot = { type: "command", id: crypto.randomUUID(), act };
		const [socket] = this.ctx.getWebSockets("bot");
		if (socket) {
			socket.send(JSON.stringify(message));
			return true;
		}
		const queued = (await this.ctx.storage.get<RoomToBot[]>("queuedCommands")) ?? [];
		if (queued.length >= MAX_QUEUED_COMMANDS) return false;
		queued.push(message);
		await this.ctx.storage.put("queuedCommands", queued);
		return true;
	}

	/** One status move, serialized with everything else the room does. */
	move(ask: TransitionAsk): Promise<boolean> {
		return this.serial(() => this.applyMove(ask));
	}

	/** Applies a move inside the serial chain: D1 first, then the room, then everyone else. */
	async applyMove(ask: TransitionAsk): Promise<boolean> {
		const state = await this.state();
		if (!state) return false;
		const result = transition(state.machine, ask);
		if (!result.ok) {
			console.warn("refused move", state.meetingId, result.detail);
			return false;
		}
		if (!result.changed) return true;
		const next = result.state;
		const now = new Date().toISOString();
		const startTime = state.startTime ?? (next.status === "active" ? now : null);
		const row = await db(this.env)
			.update(meetings)
			.set({
				status: next.status,
				completionReason: next.completion_reason,
				failureStage: next.failure_stage,
				startTime,
				endTime: isTerminal(next.status) ? now : null,
				updatedAt: now,
			})
			// Only while the record is live: one whose launch was undone, or that was ended without a room, is not the room's.
			.where(and(eq(meetings.id, state.meetingId), inArray(meetings.status, [...LIVE_STATUSES])))
			.returning()
			.get();
		if (!row) {
			await this.letGo(state);
			return false;
		}
		const updated: RoomState = { ...state, machine: next, startTime };
		const step = { from: state.machine.status, to: next.status, reason: ask.reason, actor: ask.actor, at: now };
		const notices = await this.notices.prepare(row, webhookEventsFor(state.machine, next.status), step);
		// The step and its webhook events are stored in one write: neither exists without the other.
		await this.ctx.storage.put({ ...notices, room: updated });
		const data = ask.reason || next.completion_reason ? { reason: ask.reason ?? null, completion_reason: next.completion_reason } : null;
		await this.fanout.publish(state.meetingId, meetingStatusMessage(this.ref(updated), state.userId, next.status, data));
		if (Object.keys(notices).length > 0) await this.sendNotices();
		if (isTerminal(next.status)) await this.finish(updated, ask.actor);
		return true;
	}

	/** Hands stored webhook events to the outbox after the current work; the `notify` timer retries. */
	private async sendNotices(): Promise<void> {
		await this.notices.armRetry();
		this.ctx.waitUntil(
			this.serial(() => this.notices.drain()).catch((err: unknown) => {
				console.error("webhook events wait for a retry", err instanceof Error ? err.name : "error");
			}),
		);
	}

	private async finish(state: RoomState, actor: Actor): Promise<void> {
		await this.timers.clear("watchdog", "stop_deadline");
		await this.ctx.storage.delete("queuedCommands");
		if (state.link) {
			await accountObject(this.env, state.userId).releaseBotSlot(state.link);
			await this.saveState({ ...state, link: null });
		}
		// A bot that reported the end itself still waits for its ack; the inbox closes it after.
		if (actor === "bot") return;
		for (const socket of this.ctx.getWebSockets("bot")) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
		// The bot may be out of reach of its channel (or never connected): its host removes it.
		this.ctx.waitUntil(stopBot(this.env, state.meetingId));
	}

	/** The record moved on without the room: forget it, and remove its bot. */
	private async letGo(state: RoomState): Promise<void> {
		console.warn("meeting moved on without its room", state.meetingId);
		await this.ctx.storage.delete(["room", "queuedCommands"]);
		await this.timers.clear("watchdog", "stop_deadline");
		for (const socket of this.ctx.getWebSockets("bot")) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
		this.ctx.waitUntil(stopBot(this.env, state.meetingId));
	}

	/** Plans (or re-plans, or cancels) auto-join for a scheduled meeting. */
	plan(request: PlanRequest): Promise<void> {
		return this.autoJoin.plan(request);
	}

	/** A new meeting on the same link: everyone watching this one follows it there. */
	async handOver(toMeetingId: number): Promise<void> {
		const fromMeetingId = (await this.state())?.meetingId;
		if (!fromMeetingId) return;
		for (const userId of await this.fanout.watchers()) {
			const feed = liveFeed(this.env, userId);
			if (!(await feed.follow(fromMeetingId, toMeetingId))) await this.fanout.remove(userId);
		}
	}

	/** The meeting's workspace binding changed: each watcher keeps it only if they may still read it. */
	async recheckWatchers(meetingId: number): Promise<void> {
		for (const userId of await this.fanout.watchers()) await liveFeed(this.env, userId).revalidate([meetingId]);
	}

	async addSubscriber(userId: number): Promise<void> {
		await this.fanout.add(userId);
	}

	async removeSubscriber(userId: number): Promise<void> {
		await this.fanout.remove(userId);
	}

	/** The bot channel upgrade, already authenticated by the Worker with the meeting's token. */
	override async fetch(request: Request): Promise<Response> {
		if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("expected a WebSocket", { status: 426 });
		const state = await this.state();
		if (!state || !isLive(state.machine.status)) return new Response("no live meeting", { status: 409 });
		for (const old of this.ctx.getWebSockets("bot")) old.close(ROOM_CLOSE.replaced, "replaced by a newer connection");
		const pair = new WebSocketPair();
		this.ctx.acceptWebSocket(pair[1], ["bot"]);
		await this.timers.clear("watchdog");
		return new Response(null, { status: 101, webSocket: pair[0] });
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		if (typeof data !== "string") return;
		await this.serial(() => this.inbox.receive(socket, data));
	}

	override async webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		closeQuietly(socket, code, reason);
		await this.botGone(socket);
	}

	override async webSocketError(socket: WebSocket): Promise<void> {
		await this.botGone(socket);
	}

	/** A bot that dropped its channel gets a grace period to come back before teardown. */
	private async botGone(socket: WebSocket): Promise<void> {
		const others = this.ctx.getWebSockets("bot").filter((s) => s !== socket && s.readyState === WebSocket.OPEN);
		const state = await this.state();
		if (others.length > 0 || !state || !isLive(state.machine.status)) return;
		await this.timers.set("watchdog", Date.now() + intVar(this.env.BOT_RECONNECT_GRACE_S, 30) * 1000);
	}

	/** Runs each due timer's action; a timer goes only once its action succeeded, else it retries. */
	override async alarm(): Promise<void> {
		const now = Date.now();
		for (const [timer, firedFor] of await this.timers.dueAt(now)) {
			try {
				await this.runTimer(timer);
				await this.timers.settle(timer, firedFor);
			} catch (err) {
				console.error("timer action failed, retrying", timer, err instanceof Error ? err.name : "error");
				await this.timers.retry(timer, now);
			}
		}
	}

	private async runTimer(timer: TimerName): Promise<void> {
		if (timer === "watchdog") await this.move({ to: "failed", actor: "system", reason: "the bot stopped reporting" });
		if (timer === "stop_deadline") await this.move({ to: "completed", actor: "user" });
		if (timer === "auto_join") await this.autoJoin.fire();
		if (timer === "notify") await this.serial(() => this.notices.drain());
	}
}

/** Completes the close handshake; the socket may already be gone. */
export function closeQuietly(socket: WebSocket, code: number, reason: string): void {
	try {
		socket.close(code === 1005 || code === 1006 ? 1000 : code, reason);
	} catch {
		// already closed
	}
}
