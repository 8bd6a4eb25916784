import { tellAgentMeetingCompleted } from "../../src/agent/meeting-events";
import type { FailureDiagnostics, HelpReport } from "../../src/bot-channel/help-report";
import {
	type Act,
	CHANNEL_PING,
	CHANNEL_PONG,
	type CompletionCause,
	type JoinStep,
	ROOM_CLOSE,
	type RoomToBot,
} from "../../src/bot-channel/protocol";
import type { MeetingRow } from "../../src/db/schema";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { type MeetingRef, meetingRefOf, statusStepMessage } from "../../src/live/feed-messages";
import { sanitize } from "../../src/meetings/failure-detail";
import { findOwnedMeeting, nowIso } from "../../src/meetings/meeting-store";
import {
	type Actor,
	type CompletionReason,
	type FailureCause,
	type FailureStage,
	isTerminal,
	LIVE_STATUSES,
	type MeetingState,
	type MeetingStatus,
} from "../../src/meetings/status-machine";
import { type Announce, moveMeeting, type StatusStep } from "../../src/meetings/status-writes";
import type { SummaryClaim } from "../../src/meetings/summary-claim";
import type { MeetingStreamStub } from "../../src/objects";
import { accountObject, meetingStream } from "../../src/objects";
import { withScreenshotLinks } from "../../src/screenshots/screenshots";
import { type MeetingWebhookEventType, webhookEventsFor } from "../../src/webhooks/envelope";
import { type AlarmTimers, kvAlarmTimers } from "../shared/alarm-timers";
import { type ErasedStorage, eraseStorage } from "../shared/erase";
import { SerialQueue } from "../shared/serial-queue";
import { CommandQueue, type QueueRefusal } from "./command-queue";
import { RoomFanout } from "./fanout";
import { ROOM_KEYS, type RoomTimerName } from "./storage";
import { RoomWebhookRelay } from "./webhook-relay";

/** The statuses a bot's words about where it is are told for (a help request says its own, in `data.help`). */
const NOTED_BOT_STATUSES: ReadonlySet<MeetingStatus> = new Set(["joining", "awaiting_admission", "active"]);

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
	/** The last seq applied from the current attempt's bot (each attempt's bot counts from 1). */
	lastAppliedSeq: number;
	/** Which bot the meeting wants: 1, then one more per respawn (docs/bot-fleet.md#how-a-bot-is-placed). */
	attempt: number;
	/** The host that claimed the current attempt; null while its ticket waits on the queue. */
	claim: BotClaim | null;
	/**
	 * The id of the spawn ticket published for the current attempt: a claim must present that
	 * ticket. Null before it is published (absent in a state stored before tickets were signed).
	 */
	ticketId?: string | null;
	/** Whether the current attempt's bot has opened its channel since its claim. */
	connected: boolean;
	respawns: number;
}

/**
 * An auto-join's step to `requested` is held back until a host claims the attempt
 * (RoomLaunch.startPlanned): a plan no host takes then goes back to `scheduled` unseen.
 */
const HELD_CLAIM_KEY = ROOM_KEYS.heldClaimStep;

export interface BotClaim {
	host_id: string;
	version: string;
	at: string;
}

/**
 * What the room's feature parts add to every move, handed in by the MeetingRoom (room-hooks.ts),
 * so this hub imports none of them: a help request's fields and its timer, a completion's
 * summary claim and its held `meeting.completed`, the screenshots' retention at an ending.
 */
export interface RoomHooks {
	/** The `data` fields a move writes for what the bot is stuck on (help.ts). */
	helpFields(state: RoomState, ask: TransitionAsk): Promise<Record<string, unknown> | undefined>;
	/** Arms or clears the `help` timer after a move (or a repeated ask for help). */
	helpTimerAfter(before: MeetingState, after: MeetingState, help?: HelpReport): Promise<void>;
	/** A completion's summary claimed by the stream; `hold` when its `meeting.completed` waits for it. */
	claimSummary(row: MeetingRow): Promise<SummaryClaim>;
	/** The stored entry that holds a completion's `meeting.completed`. */
	holdCompletion(step: StatusStep, shown: MeetingRow): Record<string, unknown>;
	/** At an ending: when the meeting's screenshots are deleted. */
	armScreenshotRetention(owner: { userId: number; meetingId: number }): Promise<void>;
}

export interface TransitionAsk {
	to: MeetingStatus;
	actor: Actor;
	completion_reason?: CompletionReason;
	failure_stage?: FailureStage;
	/** The fleet took the bot away: the stage decides the reason (status-machine.ts), this goes in `data.failure_cause`. */
	failure_cause?: FailureCause;
	reason?: string;
	/** With `needs_help`: what the bot is stuck on (help.ts keeps it in `data.help`). */
	help?: HelpReport;
	/** With an ending: what the bot saw last (`data.diagnostics`). */
	diagnostics?: FailureDiagnostics;
	/** The step of its join the bot reported (`data.join_step`, docs/bot-fleet.md#join-health). */
	join_step?: JoinStep;
	/** With `completed`: what ended it where the reason cannot say (`data.completion_cause`). */
	completion_cause?: CompletionCause;
}

/**
 * The room's inside: its storage, timers, fan-out, webhook events and status moves. Built by
 * the MeetingRoom and handed only to its helpers (bot channel, launch, auto-join), so none of it
 * is part of the room's RPC surface and no stub can reach past the serial queue.
 */
export class RoomContext {
	readonly timers: AlarmTimers<RoomTimerName>;
	readonly fanout: RoomFanout;
	readonly webhooks: RoomWebhookRelay;
	/** Commands kept for a bot that is away, until it says hello again. */
	readonly commands: CommandQueue;
	/** What the feature parts add to every move (set once, by the MeetingRoom). */
	readonly hooks: RoomHooks;
	private readonly queue = new SerialQueue();
	#stream: { meetingId: number; stub: MeetingStreamStub } | undefined;

	constructor(
		private readonly ctx: DurableObjectState,
		/** Read at each use: the object's `env` is the one binding set (tests swap it for faults). */
		private readonly envOf: () => Env,
		hooksOf: (room: RoomContext) => RoomHooks,
	) {
		this.timers = kvAlarmTimers<RoomTimerName>(ctx.storage);
		this.fanout = new RoomFanout(ctx.storage, envOf());
		this.webhooks = new RoomWebhookRelay(ctx.storage, this.timers, (userId) => accountObject(this.env, userId));
		this.commands = new CommandQueue(ctx.storage);
		this.hooks = hooksOf(this);
		// The bot's keepalive is answered without waking the room; the lease reads when it last came.
		ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair(CHANNEL_PING, CHANNEL_PONG));
	}

	get env(): Env {
		return this.envOf();
	}

	/**
	 * The meeting's MeetingStream (its SSE log and live copilot), one kept stub: the room's calls
	 * on it (transcript lines, then the end) arrive in the order made.
	 */
	stream(meetingId: number): MeetingStreamStub {
		if (this.#stream?.meetingId !== meetingId) this.#stream = { meetingId, stub: meetingStream(this.env, meetingId) };
		return this.#stream.stub;
	}

	get storage(): DurableObjectStorage {
		return this.ctx.storage;
	}

	botSockets(): WebSocket[] {
		return this.ctx.getWebSockets("bot");
	}

	/** Accepts a bot's channel, tagged with the attempt its token was signed for. */
	acceptBot(socket: WebSocket, attempt: number): void {
		this.ctx.acceptWebSocket(socket, ["bot", `attempt:${attempt}`]);
	}

	/** When the bot last pinged on this socket (the runtime answered for the room); null when it never has. */
	lastPing(socket: WebSocket): number | null {
		return this.ctx.getWebSocketAutoResponseTimestamp(socket)?.getTime() ?? null;
	}

	/** The attempt a bot socket was accepted for. */
	attemptOf(socket: WebSocket): number | null {
		const tag = this.ctx.getTags(socket).find((t) => t.startsWith("attempt:"));
		return tag ? Number(tag.slice("attempt:".length)) : null;
	}

	/** Closes every bot socket of an attempt other than `current`: that bot leaves and does not reconnect. */
	supersede(current: number): void {
		for (const socket of this.botSockets()) {
			if (this.attemptOf(socket) !== current) socket.close(ROOM_CLOSE.superseded, "a newer bot took over the meeting");
		}
	}

	waitUntil(work: Promise<unknown>): void {
		this.ctx.waitUntil(work);
	}

	/** Runs room work one piece at a time, across awaits, so moves never interleave. */
	serial<T>(work: () => Promise<T>): Promise<T> {
		return this.queue.run(work);
	}

	async state(): Promise<RoomState | undefined> {
		return this.ctx.storage.get<RoomState>(ROOM_KEYS.state);
	}

	async saveState(state: RoomState): Promise<void> {
		await this.ctx.storage.put(ROOM_KEYS.state, state);
	}

	ref(state: RoomState): MeetingRef {
		return meetingRefOf({ id: state.meetingId, platform: state.platform, nativeMeetingId: state.nativeMeetingId });
	}

	/**
	 * Sends now when the bot is connected, otherwise keeps it for when it says hello again; a
	 * refusal when the waiting commands are already at their cap in count or in bytes.
	 */
	async sendCommand(act: Act): Promise<QueueRefusal | null> {
		const message: RoomToBot = { type: "command", id: crypto.randomUUID(), act };
		const [socket] = this.botSockets();
		if (socket) {
			socket.send(JSON.stringify(message));
			return null;
		}
		return this.commands.push(message);
	}

	/** One status move, serialized with everything else the room does. */
	move(ask: TransitionAsk): Promise<boolean> {
		return this.serial(() => this.applyMove(ask));
	}

	/** Applies a move inside the serial chain: D1 first (the one write path), then the room, then everyone else. */
	async applyMove(ask: TransitionAsk): Promise<boolean> {
		const state = await this.state();
		if (!state) return false;
		// Watchers hear of `requested` before anything that follows it, so the steps they see join up.
		await this.announceHeldClaim(state);
		const startTime = state.startTime ?? (ask.to === "active" ? nowIso() : null);
		const announce: Announce = async (row, step, { before, after }) => {
			const updated: RoomState = { ...state, machine: after, startTime };
			// The step and its webhook events are stored in one write: neither exists without the other.
			await this.tell(row, step, webhookEventsFor(before, after.status), { [ROOM_KEYS.state]: updated });
			await this.hooks.helpTimerAfter(before, after, ask.help);
			if (isTerminal(after.status)) await this.finish(updated, ask.actor);
		};
		const { help: _help, diagnostics: _diagnostics, join_step, completion_cause, ...request } = ask;
		const cause = completion_cause && ask.to === "completed" ? { completion_cause } : {};
		const help = await this.hooks.helpFields(state, ask);
		const outcome = await moveMeeting(
			this.env,
			{
				meetingId: state.meetingId,
				current: state.machine,
				ask: request,
				// Only while the record is live: one whose launch was undone, or that was ended without a room, is not the room's.
				guard: LIVE_STATUSES,
				values: startTime !== state.startTime ? { startTime } : undefined,
				data: join_step || cause.completion_cause ? { ...help, ...cause, ...(join_step ? { join_step } : {}) } : help,
			},
			announce,
		);
		if (outcome.ok) {
			// Asking again while stuck is no step, but it may be about something else, which decides the timer.
			if (!outcome.step && ask.to === "needs_help") await this.hooks.helpTimerAfter(outcome.state, outcome.state, ask.help);
			if (!outcome.step && ask.actor === "bot" && ask.reason && NOTED_BOT_STATUSES.has(ask.to) && ask.to === state.machine.status)
				await this.noteBotStatus(state, ask.reason);
			return true;
		}
		if (outcome.why === "refused") console.warn("refused move", state.meetingId, outcome.detail);
		else await this.letGo(state);
		return false;
	}

	/**
	 * A bot that says again where it is, with words (a Zoom bot waiting for the host to start the
	 * meeting): news that changes no status, told as a note on /ws and webhooks.
	 */
	private async noteBotStatus(state: RoomState, reason: string): Promise<void> {
		const row = await findOwnedMeeting(this.env, state.userId, state.meetingId);
		if (!row) return;
		const status = state.machine.status;
		const step: StatusStep = { from: status, to: status, reason: sanitize(reason), actor: "bot", at: nowIso(), note: true };
		await this.tell(row, step, webhookEventsFor({ status, reached_stage: state.machine.reached_stage }, status, true));
	}

	/** Keeps the step to `requested` unannounced until a host claims the attempt (or another move comes first). */
	async holdClaim(step: StatusStep | null): Promise<void> {
		if (step) await this.ctx.storage.put(HELD_CLAIM_KEY, step);
		else await this.ctx.storage.delete(HELD_CLAIM_KEY);
	}

	/** Whether the step to `requested` is still held back (nobody has heard of it). */
	async claimHeld(): Promise<boolean> {
		return (await this.ctx.storage.get<StatusStep>(HELD_CLAIM_KEY)) !== undefined;
	}

	/** Announces the held step to `requested`, with the record as it is now, once. */
	async announceHeldClaim(state: RoomState): Promise<void> {
		const step = await this.ctx.storage.get<StatusStep>(HELD_CLAIM_KEY);
		if (!step) return;
		const row = await findOwnedMeeting(this.env, state.userId, state.meetingId);
		if (row) await this.tell(row, step, webhookEventsFor({ status: step.from, reached_stage: null }, step.to));
		await this.ctx.storage.delete(HELD_CLAIM_KEY);
	}

	/**
	 * Stores a step's webhook events (with `alsoStore`), tells the watchers, and sends the events on.
	 * A completion's `meeting.completed` is stored held, and goes once the meeting's stream stored its summary.
	 */
	async tell(row: MeetingRow, step: StatusStep, events: MeetingWebhookEventType[], alsoStore: Record<string, unknown> = {}): Promise<void> {
		// Every ending passes here, a room's own and one made without it (a stop with no room): the stream
		// hears of each (after every transcript line, which went in before), and a copilot writes its
		// meeting document for each. The stream object only records it; its copilot's work is not awaited.
		if (step.to && isTerminal(step.to) && !(step.from && isTerminal(step.from))) {
			const end = { status: step.to, completion_reason: row.completionReason ?? null };
			try {
				await this.stream(row.id).meetingEnded(end, row.startTime ?? null);
			} catch (err) {
				// The move stands; a reader who opens the stream later gets the end from the record (the route says it ended).
				console.error("the meeting stream did not take the end", row.id, errorName(err));
			}
		}
		const completion = step.to === "completed" && step.from !== "completed";
		// A completion claims the meeting's summary in its stream; its meeting.completed waits for it (completion-hold.ts).
		const { row: record, hold } = completion ? await this.hooks.claimSummary(row) : { row, hold: false };
		// What the owner is shown carries screenshot links minted now; the record keeps only references.
		const shown: MeetingRow = { ...record, data: await withScreenshotLinks(this.env, record.id, record.data) };
		const sent = hold ? events.filter((event) => event !== "meeting.completed") : events;
		const held = hold && sent.length < events.length ? this.hooks.holdCompletion(step, shown) : {};
		const entries = { ...(await this.webhooks.prepare(shown, sent, step)), ...held, ...alsoStore };
		if (Object.keys(entries).length > 0) await this.ctx.storage.put(entries);
		// A record just made: sockets that subscribed to its link before it existed hear of it, this step first.
		if (step.from === null && step.to !== null && row.nativeMeetingId) {
			await this.fanout.adoptWaiting(row.id, row.userId, { platform: row.platform, native_id: row.nativeMeetingId });
		}
		await this.fanout.publish(row.id, statusStepMessage(shown, step));
		if (sent.length > 0) await this.sendNotices();
		// Every completion passes here (room moves and plan-side steps alike): the user's event routines run for it.
		if (completion) this.ctx.waitUntil(tellAgentMeetingCompleted(this.env, record));
	}

	/**
	 * The meeting was deleted (src/meetings/meeting-erasure.ts, docs/retention.md): a bot still on
	 * its channel is closed, and everything the room keeps goes (its state, timers, queued commands
	 * and webhook events, screenshot names, watchers). Who watched the meeting is returned: their
	 * feeds are told once the record is gone.
	 */
	async erase(): Promise<ErasedStorage & { watchers: number[] }> {
		const watchers = await this.fanout.watchers();
		for (const socket of this.botSockets()) socket.close(ROOM_CLOSE.meetingEnded, "meeting deleted");
		const held = await eraseStorage(this.ctx.storage);
		this.fanout.forget();
		return { ...held, watchers };
	}

	/** Hands stored webhook events to the outbox after the current work; the `notify` timer retries. */
	async sendNotices(): Promise<void> {
		await this.webhooks.armRetry();
		this.ctx.waitUntil(
			this.serial(() => this.webhooks.drain()).catch((err: unknown) => {
				console.error("webhook events wait for a retry", errorName(err));
			}),
		);
	}

	private async finish(state: RoomState, actor: Actor): Promise<void> {
		await this.timers.clear("watchdog", "lease", "stop_deadline", "placement", "placement_refresh", "help");
		await this.commands.clear();
		await this.hooks.armScreenshotRetention({ userId: state.userId, meetingId: state.meetingId });
		if (state.link) {
			await accountObject(this.env, state.userId).releaseBotSlot(state.link);
			await this.saveState({ ...state, link: null });
		}
		// A bot that reported the end itself still waits for its ack; the inbox closes it after.
		if (actor === "bot") return;
		// A bot out of reach of its channel is refused (409) when it comes back, and leaves; or its own max time ends it.
		for (const socket of this.botSockets()) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
	}

	/** The record moved on without the room: forget it, and close its bot's channel. */
	private async letGo(state: RoomState): Promise<void> {
		console.warn("meeting moved on without its room", state.meetingId);
		await this.ctx.storage.delete(ROOM_KEYS.state);
		await this.commands.clear();
		await this.timers.clear("watchdog", "lease", "stop_deadline", "placement", "placement_refresh", "help");
		for (const socket of this.botSockets()) socket.close(ROOM_CLOSE.meetingEnded, "meeting ended");
	}
}
