import { DurableObject } from "cloudflare:workers";
import type { ClaimRequest } from "../../src/bot-channel/fleet";
import type { Act } from "../../src/bot-channel/protocol";
import type { RoomStart } from "../../src/bots/launch";
import type { PublishResult } from "../../src/bots/spawn-queue";
import type { MeetingRow } from "../../src/db/schema";
import type { Env } from "../../src/env";
import type { MeetingStatus } from "../../src/meetings/status-machine";
import type { StatusStep } from "../../src/meetings/status-writes";
import { webhookEventsFor } from "../../src/webhooks/envelope";
import { RoomAlarm } from "./alarm";
import { AutoJoin, type PlanRequest } from "./auto-join";
import { RoomBotChannel } from "./channel";
import { CompletionHold } from "./completion-hold";
import { RoomContext } from "./context";
import { type CommandOutcome, RoomControl } from "./control";
import { RoomLaunch } from "./launch";
import { type ClaimOutcome, RoomPlacement } from "./placement";
import { meterRelayedAudio, type RelayAllowance } from "./relay-meter";
import { roomHooks } from "./room-hooks";
import { reserveScreenshot } from "./screenshots";

export type { RoomState, TransitionAsk } from "./context";
export type { CommandOutcome } from "./control";

/** The RPC surface (fetch, alarm, webSocket* are the runtime's); all else is in RoomContext, held by the room's helpers behind its serial queue. */
export const MEETING_ROOM_RPC = [
	"start",
	"claim",
	"stop",
	"command",
	"plan",
	"announce",
	"handOver",
	"recheckWatchers",
	"summaryStored",
	"addSubscriber",
	"removeSubscriber",
	"meterTranscription",
	"reserveScreenshot",
	"erase",
] as const;

/**
 * One per meeting: the authority for a live meeting. It owns the status machine's moves (each written through to D1 before it is
 * acknowledged), the bot channel, placement and respawn, auto-join, the webhook relay, live fan-out and its timers. Its MeetingStream
 * keeps the stream log, live copilot and summary; a completion's `meeting.completed` waits here for the summary.
 */
export class MeetingRoom extends DurableObject<Env> {
	readonly #room = new RoomContext(this.ctx, () => this.env, roomHooks);
	readonly #completions = new CompletionHold(this.#room);
	readonly #placement = new RoomPlacement(this.#room);
	readonly #launch = new RoomLaunch(this.#room, this.#placement);
	readonly #channel = new RoomBotChannel(this.#room);
	readonly #control = new RoomControl(this.#room);
	readonly #autoJoin = new AutoJoin(this.#room, (start: RoomStart): Promise<PublishResult> => this.#launch.startPlanned(start));
	readonly #alarm = new RoomAlarm(this.#room, this.#placement, this.#autoJoin, this.#channel, this.#completions);

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
	stop(): Promise<{ status: MeetingStatus } | null> {
		return this.#control.stop();
	}

	/** Relays a command to the bot, now or when it says hello again. */
	command(act: Act): Promise<CommandOutcome> {
		return this.#control.command(act);
	}

	/** The meeting's stream stored its summary (meeting-stream/summary.ts): the held `meeting.completed` goes. */
	summaryStored(meetingId: number): Promise<void> {
		return this.#room.serial(() => this.#completions.release(meetingId));
	}

	/** Plans (or re-plans, or cancels) auto-join for a scheduled meeting. */
	plan(request: PlanRequest): Promise<void> {
		return this.#autoJoin.plan(request);
	}

	/** A new meeting on the same link: everyone watching this one follows it there. */
	async handOver(toMeetingId: number): Promise<void> {
		const fromMeetingId = (await this.#room.state())?.meetingId;
		if (fromMeetingId) await this.#room.fanout.handOver(fromMeetingId, toMeetingId);
	}

	/** The meeting's workspace binding changed: each watcher and stream reader keeps it only if they may still read it. */
	async recheckWatchers(meetingId: number): Promise<void> {
		await this.#room.stream(meetingId).revalidateReaders(meetingId);
		await this.#room.fanout.revalidate(meetingId);
	}

	addSubscriber(userId: number): Promise<void> {
		return this.#room.fanout.add(userId);
	}

	removeSubscriber(userId: number): Promise<void> {
		return this.#room.fanout.remove(userId);
	}

	/** A bot's screenshot upload: whether its attempt may store `name` (it has it already, or fewer than the bound). */
	reserveScreenshot(attempt: number, name: string): Promise<boolean> {
		return reserveScreenshot(this.#room, attempt, name);
	}

	/** The meeting was deleted: everything the room keeps goes; who watched it (context.ts erase). */
	erase() {
		return this.#room.serial(() => this.#room.erase());
	}

	/** A bot's transcription request through the relay: its attempt must be the current one, its audio within the meeting's allowance. */
	meterTranscription(attempt: number, seconds: number): Promise<RelayAllowance> {
		return meterRelayedAudio(this.#room, attempt, seconds);
	}

	/** The bot channel upgrade, already authenticated by the Worker with the meeting's token, whose attempt it passes on. */
	override fetch(request: Request): Promise<Response> {
		return this.#channel.upgrade(request);
	}

	override webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		return this.#channel.received(socket, data);
	}

	override webSocketClose(socket: WebSocket, code: number, reason: string): Promise<void> {
		return this.#channel.closed(socket, code, reason);
	}

	override webSocketError(socket: WebSocket): Promise<void> {
		return this.#channel.gone(socket);
	}

	override alarm(): Promise<void> {
		return this.#alarm.ring();
	}
}
