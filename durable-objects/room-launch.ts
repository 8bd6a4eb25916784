import { botEndpoints } from "../src/bots/bot-endpoints";
import { type BotHostResult, spawnBot, stopBot } from "../src/bots/bot-host-client";
import type { RoomStart } from "../src/bots/launch";
import { intVar } from "../src/env";
import { initialState } from "../src/meetings/status-machine";
import { moveMeeting, unannounced } from "../src/meetings/status-writes";
import { accountObject, meetingRoom } from "../src/objects";
import type { RoomCore, RoomState } from "./room-core";

/** How the room takes over a meeting that has just become `requested`, and gets its bot spawned. */
export class RoomLaunch {
	constructor(private readonly room: RoomCore) {}

	/** A user's start: the claim is announced at once, and a refused spawn fails the meeting. */
	async start(start: RoomStart): Promise<void> {
		await this.takeOver(start);
		await this.room.serial(() => this.announceClaim(start));
		this.room.waitUntil(this.spawn(start));
	}

	/**
	 * Auto-join's start: the spawn is awaited, and a spawn the bot host refuses hands the meeting
	 * back to its plan (`scheduled`, slot released) instead of failing it, so auto-join can set
	 * `data.auto_join_error` and retry (docs/status-machine.md#auto-join). The step to `requested` is
	 * announced only once the bot host took the bot.
	 */
	async startPlanned(start: RoomStart): Promise<BotHostResult> {
		await this.takeOver(start);
		const result = await this.requestSpawn(start);
		if (!result.ok && (await this.room.serial(() => this.giveBack(start)))) return result;
		await this.room.serial(() => this.announceClaim(start));
		return { ok: true };
	}

	/** The step to `requested` (written by launch) raises its frame and webhook like any other step. */
	private async announceClaim(start: RoomStart): Promise<void> {
		const step = { from: start.previousStatus, to: "requested" as const, actor: start.actor, at: start.meeting.updatedAt };
		await this.room.tell(start.meeting, step, ["meeting.status_change"]);
	}

	private async takeOver(start: RoomStart): Promise<void> {
		await this.room.serial(async () => {
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
			await this.room.saveState(state);
			await this.room.storage.delete("queuedCommands");
			await this.room.timers.clear("auto_join", "stop_deadline");
			await this.room.timers.set("watchdog", Date.now() + intVar(this.room.env.BOT_REPORT_TIMEOUT_S, 60) * 1000);
			if (start.previousMeetingId) await meetingRoom(this.room.env, start.previousMeetingId).handOver(m.id);
		});
	}

	/**
	 * Undoes a takeover whose bot never got going (the table's give-back to a plan); false when
	 * the meeting has moved on since. The claim was never announced, so neither is its undoing.
	 */
	private async giveBack(start: RoomStart): Promise<boolean> {
		const state = await this.room.state();
		if (state?.machine.status !== "requested") return false;
		const back = start.previousStatus ?? "scheduled";
		const outcome = await moveMeeting(
			this.room.env,
			{ meetingId: state.meetingId, current: state.machine, ask: { to: back, actor: start.actor } },
			unannounced,
		);
		if (!outcome.ok) return false;
		await this.room.storage.delete("room");
		await this.room.timers.clear("watchdog");
		if (state.link) await accountObject(this.room.env, state.userId).releaseBotSlot(state.link);
		// A spawn that timed out may still bring a bot up: tell the host to drop it.
		this.room.waitUntil(stopBot(this.room.env, state.meetingId));
		return true;
	}

	private async spawn(start: RoomStart): Promise<void> {
		const result = await this.requestSpawn(start);
		if (!result.ok) {
			await this.room.move({ to: "failed", actor: "system", completion_reason: "join_failure", reason: result.detail });
		}
	}

	private async requestSpawn(start: RoomStart): Promise<BotHostResult> {
		return spawnBot(this.room.env, { ...start.spawn, attempt: 1, ...(await botEndpoints(this.room.env, start.meeting.id)) });
	}
}
