import type { Act } from "../../src/bot-channel/protocol";
import { isLive, type MeetingStatus } from "../../src/meetings/status-machine";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext } from "./context";

/** What a user's stop and commands use of the room. */
export type ControlHost = Pick<RoomContext, "env" | "state" | "timers" | "botSockets" | "move" | "sendCommand">;

/** What became of a command for the bot (see `command`). */
export type CommandOutcome = "relayed" | "no_live_bot" | "queue_full" | "queue_too_large";

/** The user's hand on a live meeting's bot: stop it, or send it a command. */
export class RoomControl {
	constructor(private readonly room: ControlHost) {}

	/** A user stop. Always wins: the meeting ends `completed` with `stopped`. */
	async stop(): Promise<{ status: MeetingStatus } | null> {
		const room = this.room;
		const state = await room.state();
		if (!state || !isLive(state.machine.status)) return null;
		if (room.botSockets().length === 0 || state.machine.status === "requested") {
			await room.move({ to: "completed", actor: "user" });
		} else {
			await room.move({ to: "stopping", actor: "user" });
			await room.sendCommand({ action: "leave" });
			await room.timers.set("stop_deadline", Date.now() + setting(room.env, "BOT_STOP_GRACE_S") * 1000);
		}
		return { status: (await room.state())?.machine.status ?? "completed" };
	}

	/** Relays a command to the bot, now or when it says hello again. */
	async command(act: Act): Promise<CommandOutcome> {
		const state = await this.room.state();
		if (!state || !isLive(state.machine.status) || state.machine.status === "stopping") return "no_live_bot";
		const refusal = await this.room.sendCommand(act);
		return refusal === null ? "relayed" : refusal === "too_many" ? "queue_full" : "queue_too_large";
	}
}
