import type { RoomStart } from "../../src/bots/launch";
import type { PublishResult } from "../../src/bots/spawn-queue";
import { initialState } from "../../src/meetings/status-machine";
import type { StatusStep } from "../../src/meetings/status-writes";
import { meetingRoom } from "../../src/objects";
import type { RoomContext, RoomState } from "./context";

/** What taking over a meeting and launching its bot use of the room. */
export type LaunchHost = Pick<
	RoomContext,
	"env" | "state" | "saveState" | "storage" | "timers" | "serial" | "move" | "tell" | "commands" | "holdClaim" | "waitUntil"
>;

import { LAUNCH_KEY, type RoomPlacement, type StoredLaunch } from "./placement";

/** How the room takes over a meeting that has just become `requested`, and puts out its spawn ticket. */
export class RoomLaunch {
	constructor(
		private readonly room: LaunchHost,
		private readonly placement: RoomPlacement,
	) {}

	/** A user's start: the claim is announced at once, and a ticket that cannot be published fails the meeting. */
	async start(start: RoomStart): Promise<void> {
		await this.takeOver(start, false);
		await this.room.serial(() => this.room.tell(start.meeting, claimStep(start), ["meeting.status_change"]));
		this.room.waitUntil(this.publish());
	}

	/**
	 * Auto-join's start: the publish is awaited, and a ticket that cannot be published hands the
	 * meeting back to its plan (`scheduled`, slot released) instead of failing it, so auto-join can
	 * set `data.auto_join_error` and retry (docs/status-machine.md#auto-join). The step to
	 * `requested` is held back until a host claims the attempt (RoomPlacement.claim): a plan that
	 * gets no bot goes back to `scheduled` without watchers ever seeing it leave: a plan whose
	 * spawn fails stays unchanged (docs/api.md#auto-join-placement).
	 */
	async startPlanned(start: RoomStart): Promise<PublishResult> {
		await this.takeOver(start, true);
		const result = await this.room.serial(async () => {
			const state = await this.room.state();
			return state ? this.placement.publishTicket(state) : { ok: false as const, detail: "the meeting moved on" };
		});
		if (!result.ok && (await this.room.serial(() => this.placement.giveBack()))) return result;
		if (result.ok) await this.room.serial(() => this.placement.watch.look());
		return { ok: true };
	}

	/** `hold`: keep the step to `requested` from watchers until a host claims the attempt. */
	private async takeOver(start: RoomStart, hold: boolean): Promise<void> {
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
				attempt: 1,
				claim: null,
				ticketId: null,
				connected: false,
				respawns: 0,
			};
			const launch: StoredLaunch = { spawn: start.spawn, plannedFrom: start.previousStatus, actor: start.actor };
			await this.room.saveState(state);
			await this.room.storage.put(LAUNCH_KEY, launch);
			await this.room.holdClaim(hold ? claimStep(start) : null);
			await this.room.commands.clear();
			await this.room.timers.clear("auto_join", "stop_deadline", "watchdog");
			// Before a claim only the placement deadline applies: no bot exists yet to report.
			await this.room.timers.set("placement", this.placement.deadline());
			await this.placement.watch.begin(state.attempt);
			if (start.previousMeetingId) await meetingRoom(this.room.env, start.previousMeetingId).handOver(m.id);
		});
	}

	private async publish(): Promise<void> {
		const result = await this.room.serial(async () => {
			const state = await this.room.state();
			// A stop before the ticket went out, or a host that claimed already: nothing to place.
			if (state?.machine.status !== "requested" || state.claim) return { ok: true as const };
			const published = await this.placement.publishTicket(state);
			// What it waits on, as soon as the ticket is out (the refresh timer's note comes only if it still waits).
			if (published.ok) await this.placement.watch.look();
			return published;
		});
		if (!result.ok) {
			await this.room.move({ to: "failed", actor: "system", completion_reason: "join_failure", reason: result.detail });
		}
	}
}

/** The step to `requested` that launch wrote; it raises its frame and webhook like any other step. */
function claimStep(start: RoomStart): StatusStep {
	return { from: start.previousStatus, to: "requested", actor: start.actor, at: start.meeting.updatedAt };
}
