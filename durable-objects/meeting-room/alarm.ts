import { errorName } from "../../src/error-text";
import { setting } from "../../src/settings/deployment-defaults";
import type { AutoJoin } from "./auto-join";
import type { RoomContext } from "./context";
import type { RoomPlacement } from "./placement";
import type { RoomTimerName } from "./storage";

/** The room's one alarm: each due timer's action (docs/status-machine.md#timers-that-move-a-meeting). */
export class RoomAlarm {
	constructor(
		private readonly room: RoomContext,
		private readonly placement: RoomPlacement,
		private readonly autoJoin: AutoJoin,
	) {}

	/** Runs each due timer's action; a timer goes only once its action succeeded, else it retries. */
	async ring(): Promise<void> {
		const now = Date.now();
		const timers = this.room.timers;
		for (const [timer, firedFor] of await timers.dueAt(now)) {
			try {
				await this.#run(timer);
				await timers.settle(timer, firedFor);
			} catch (err) {
				console.error("timer action failed, retrying", timer, errorName(err));
				await timers.retry(timer, now);
			}
		}
	}

	async #run(timer: RoomTimerName): Promise<void> {
		const room = this.room;
		switch (timer) {
			case "placement":
				if ((await room.serial(() => this.placement.placementExpired())) === "handed_back") {
					await this.autoJoin.placementTimedOut(`No bot host took the meeting within ${setting(room.env, "BOT_PLACEMENT_TIMEOUT_S")} s`);
				}
				return;
			case "watchdog":
				return room.serial(() => this.placement.hostLost());
			case "stop_deadline":
				await room.move({ to: "completed", actor: "user" });
				return;
			case "auto_join":
				return this.autoJoin.fire();
			case "notify":
				return room.serial(() => room.webhooks.drain());
		}
	}
}
