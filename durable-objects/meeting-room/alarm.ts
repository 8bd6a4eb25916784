import { setting } from "../../src/settings/deployment-defaults";
import type { TimerHandlers } from "../shared/alarm-timers";
import type { AutoJoin } from "./auto-join";
import type { RoomBotChannel } from "./channel";
import type { CompletionHold } from "./completion-hold";
import type { RoomContext } from "./context";
import { type HelpHost, helpTimedOut } from "./help";
import type { RoomPlacement } from "./placement";
import { type ScreenshotsHost, screenshotsExpired } from "./screenshots";
import type { RoomTimerName } from "./storage";

/** What the alarm's actions use of the room. */
export type AlarmHost = HelpHost & ScreenshotsHost & Pick<RoomContext, "move" | "serial" | "webhooks">;

/** The room's one alarm: each due timer's action (docs/status-machine.md#timers-that-move-a-meeting). */
export class RoomAlarm {
	constructor(
		private readonly room: AlarmHost,
		private readonly placement: RoomPlacement,
		private readonly autoJoin: AutoJoin,
		private readonly channel: RoomBotChannel,
		private readonly completions: CompletionHold,
	) {}

	/** Runs each due timer's action (shared/alarm-timers.ts: a timer goes once its action succeeded, else it retries). */
	ring(): Promise<void> {
		return this.room.timers.fire(this.#actions);
	}

	readonly #actions: TimerHandlers<RoomTimerName> = {
		placement: async () => {
			if ((await this.room.serial(() => this.placement.placementExpired())) === "handed_back") {
				await this.autoJoin.placementTimedOut(`No bot host took the meeting within ${setting(this.room.env, "BOT_PLACEMENT_TIMEOUT_S")} s`);
			}
		},
		placement_refresh: () => this.room.serial(() => this.placement.watch.refresh(true)),
		watchdog: () => this.room.serial(() => this.placement.hostLost()),
		lease: () => this.room.serial(() => this.channel.leaseDue()),
		stop_deadline: () => this.room.move({ to: "completed", actor: "user" }),
		auto_join: () => this.autoJoin.fire(),
		notify: () => this.room.serial(() => this.room.webhooks.drain()),
		live_webhooks: () => this.room.serial(() => this.channel.liveWebhooks.batchDue()),
		help: () => this.room.serial(() => helpTimedOut(this.room)),
		summary_release: () => this.room.serial(() => this.completions.release()),
		screenshots_expire: () => screenshotsExpired(this.room),
	};
}
