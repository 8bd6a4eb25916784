import { freshHostReports, HOST_REPORT_FRESH_MS } from "../../../src/bot-channel/fleet-store";
import { errorName } from "../../../src/error-text";
import type { MeetingPlacement, PlacementReason } from "../../../src/live/frames";
import { findOwnedMeeting, nowIso } from "../../../src/meetings/meeting-store";
import { clearPlacement, writePlacement } from "../../../src/meetings/placement-record";
import { isLive } from "../../../src/meetings/status-machine";
import type { StatusStep } from "../../../src/meetings/status-writes";
import { setting } from "../../../src/settings/deployment-defaults";
import { webhookEventsFor } from "../../../src/webhooks/envelope";
import type { RoomContext, RoomState } from "../context";

/** What watching a waiting attempt uses of the room. */
export type WatchHost = Pick<RoomContext, "env" | "state" | "storage" | "tell" | "timers" | "claimHeld">;

import { ROOM_KEYS } from "../storage";
import { describeWait, type WaitDescription } from "./detail";

/** What the room keeps of the attempt that waits for a host. */
interface StoredWait {
	attempt: number;
	since: string;
	/** The `data.placement` last written to D1 (null before the first). */
	shown: MeetingPlacement | null;
	/** The reason last announced as a note (null before the first). */
	noted: PlacementReason | null;
}

/**
 * A meeting waiting for a bot host says what it waits on (docs/bot-fleet.md#how-a-bot-is-placed):
 * `data.placement`, made from the hosts' fresh reports when the ticket goes out and again on the
 * `placement_refresh` timer, written to D1 only when it changes. The first refresh that finds the
 * meeting still waiting, and each later one whose reason differs from the last announced, goes out
 * as a note (a step that keeps the status, the detail as its reason) on /ws and webhooks. The
 * reports only feed what users see: the claim alone ends the wait. Every method runs inside the
 * room's serial queue.
 */
export class PlacementWatch {
	constructor(private readonly room: WatchHost) {}

	private get refreshMs(): number {
		return Math.max(1, setting(this.room.env, "BOT_PLACEMENT_REFRESH_S")) * 1000;
	}

	/** An attempt starts waiting (a launch or a respawn): since now, refreshed on the timer. */
	async begin(attempt: number): Promise<void> {
		const wait: StoredWait = { attempt, since: nowIso(), shown: null, noted: null };
		await this.room.storage.put(ROOM_KEYS.placementWait, wait);
		await this.room.timers.set("placement_refresh", Date.now() + this.refreshMs);
	}

	/**
	 * The first look, as the ticket goes out: what it shows is never worth failing a launch, a
	 * respawn or a claim for, so a failed read or write is logged and the timer looks again.
	 */
	async look(): Promise<void> {
		await this.refresh(false).catch((err: unknown) => {
			console.error("data.placement not written yet", errorName(err));
		});
	}

	/**
	 * Reads the reports again and writes `data.placement` when it changed. `announce`: a reason
	 * not yet announced goes out as a note (the refresh timer's; the first look, as the ticket goes
	 * out, only writes, so a meeting placed at once says nothing more than `requested`).
	 */
	async refresh(announce: boolean): Promise<void> {
		const state = await this.room.state();
		const wait = await this.room.storage.get<StoredWait>(ROOM_KEYS.placementWait);
		const deadline = await this.room.timers.due("placement");
		if (!state || !wait || !waiting(state, wait) || deadline === undefined) {
			await this.stop();
			return;
		}
		const now = Date.now();
		const { placement, hosts } = await this.describe(state, wait, deadline, now);
		const changed = JSON.stringify(placement) !== JSON.stringify(wait.shown);
		// Operators read which hosts refuse and why here (and in the fleet metrics); the user's record says it generically.
		if (changed) console.log("placement wait", state.meetingId, `attempt ${state.attempt}`, placement.reason, hosts);
		let row = changed ? await writePlacement(this.room.env, state.meetingId, state.machine.status, placement) : undefined;
		if (changed && !row) {
			// The record moved on without the room: nothing to show.
			await this.stop();
			return;
		}
		// An auto-join's step to `requested` is not announced before a claim: nor is what it waits on.
		const news = announce && placement.reason !== wait.noted && !(await this.room.claimHeld());
		if (news) {
			row ??= await findOwnedMeeting(this.room.env, state.userId, state.meetingId);
			if (row) {
				const status = state.machine.status;
				const step: StatusStep = { from: status, to: status, reason: placement.detail, actor: "system", at: nowIso(), note: true };
				await this.room.tell(row, step, webhookEventsFor({ status, reached_stage: null }, status, true));
			}
		}
		await this.room.storage.put(ROOM_KEYS.placementWait, { ...wait, shown: placement, noted: news ? placement.reason : wait.noted });
		await this.room.timers.set("placement_refresh", now + this.refreshMs);
	}

	/** What the attempt waits on now, in words, for a `no_bot_capacity` failure; null when the reports cannot be read (it fails all the same). */
	async detailNow(state: RoomState): Promise<string | null> {
		try {
			const wait = await this.room.storage.get<StoredWait>(ROOM_KEYS.placementWait);
			const deadline = await this.room.timers.due("placement");
			if (!wait || !waiting(state, wait)) return null;
			const { placement, hosts } = await this.describe(state, wait, deadline ?? Date.now(), Date.now());
			console.log("placement wait ended", state.meetingId, `attempt ${state.attempt}`, placement.reason, hosts);
			return placement.detail;
		} catch (err) {
			console.error("what the meeting waited on is unknown", state.meetingId, errorName(err));
			return null;
		}
	}

	/** A host claimed the attempt: `data.placement` goes (a status move out of `requested` removes it itself). */
	async claimed(state: RoomState): Promise<void> {
		const wait = await this.room.storage.get<StoredWait>(ROOM_KEYS.placementWait);
		await this.stop();
		// The claim stands whatever happens here: the bot's first status move removes it anyway.
		if (wait?.shown)
			await clearPlacement(this.room.env, state.meetingId).catch((err: unknown) => {
				console.error("data.placement left until the next move", state.meetingId, errorName(err));
			});
	}

	/** The wait is over (claimed, ended, handed back): no more refreshes. */
	async stop(): Promise<void> {
		await this.room.storage.delete(ROOM_KEYS.placementWait);
		await this.room.timers.clear("placement_refresh");
	}

	private async describe(state: RoomState, wait: StoredWait, deadline: number, now: number): Promise<WaitDescription> {
		const reports = await freshHostReports(this.room.env, now);
		return describeWait(
			reports,
			{ since: wait.since, deadline: new Date(deadline).toISOString(), attempt: state.attempt },
			HOST_REPORT_FRESH_MS / 1000,
		);
	}
}

/** The stored wait is the current attempt's, which no host has claimed, of a meeting that still wants a bot. */
function waiting(state: RoomState, wait: StoredWait): boolean {
	return wait.attempt === state.attempt && !state.claim && isLive(state.machine.status) && state.machine.status !== "stopping";
}
