/** When a bot leaves on its own: `automatic_leave` from the spawn, with defaults (milliseconds). */
import type { AutomaticLeave } from "../../src/bot-channel/protocol.ts";

export const AUTOMATIC_LEAVE_DEFAULTS = {
	max_wait_for_admission: 15 * 60_000,
	max_time_left_alone: 60_000,
	no_one_joined_timeout: 2 * 60_000,
	max_bot_time: 4 * 60 * 60_000,
	/** Off unless asked for: a quiet meeting is not a reason to leave by default. */
	silence_timeout: null as number | null,
};

export type LeaveLimits = typeof AUTOMATIC_LEAVE_DEFAULTS;

export function leaveLimits(given: AutomaticLeave): LeaveLimits {
	const d = AUTOMATIC_LEAVE_DEFAULTS;
	return {
		max_wait_for_admission: given.max_wait_for_admission ?? d.max_wait_for_admission,
		max_time_left_alone: given.max_time_left_alone ?? d.max_time_left_alone,
		no_one_joined_timeout: given.no_one_joined_timeout ?? d.no_one_joined_timeout,
		max_bot_time: given.max_bot_time ?? d.max_bot_time,
		silence_timeout: given.silence_timeout ?? d.silence_timeout,
	};
}
