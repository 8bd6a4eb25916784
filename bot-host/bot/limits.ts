/**
 * When a bot leaves on its own: `automatic_leave` from the spawn, with defaults (milliseconds),
 * and the one rule that reads them (`autoLeave`), kept apart from the browser so it can be
 * tested without one.
 */
import type { AutomaticLeave } from "../../src/bot-channel/protocol.ts";
import { duration, type Ending, endingFor, leaving, seconds } from "./outcomes.ts";

export const AUTOMATIC_LEAVE_DEFAULTS = {
	max_wait_for_admission: 15 * 60_000,
	/** Vexa waits 10 min for a Zoom host who has not started the meeting, as does Attendee by default. */
	max_wait_for_host: 10 * 60_000,
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
		max_wait_for_host: given.max_wait_for_host ?? d.max_wait_for_host,
		max_time_left_alone: given.max_time_left_alone ?? d.max_time_left_alone,
		no_one_joined_timeout: given.no_one_joined_timeout ?? d.no_one_joined_timeout,
		max_bot_time: given.max_bot_time ?? d.max_bot_time,
		silence_timeout: given.silence_timeout ?? d.silence_timeout,
	};
}

/** Where the bot is, as elapsed milliseconds: all the automatic_leave rules look at. */
export interface Attendance {
	/** Since the bot was started (max_bot_time counts from the spawn, not from admission). */
	sinceStartMs: number;
	/** How long the bot has waited in the lobby; null when it is not waiting there. */
	inLobbyMs: number | null;
	/** How long the page has said the host has not started the meeting; null when it does not (or the bot asks for help). */
	waitingForHostMs?: number | null;
	/** Null until the bot is admitted. */
	call: {
		sinceAdmittedMs: number;
		/** Someone other than the bot has been in the call at some point. */
		everJoined: boolean;
		/** Alone since the last other person left; null while someone is there, or before anyone came. */
		aloneMs: number | null;
		/** Since the last caption or active speaker (since admission if nobody spoke). */
		silentMs: number;
	} | null;
}

/** The automatic leave that applies now, or null. A limit reached ends the stay (`leaving`). */
export function autoLeave(at: Attendance, config: AutomaticLeave): Ending | null {
	const limits = leaveLimits(config);
	if (at.sinceStartMs >= limits.max_bot_time)
		return leaving("max_bot_time_exceeded", `the bot's time limit of ${seconds(limits.max_bot_time)} was reached (max_bot_time)`);
	// Still `joining` (the bot has not reached a lobby): a join failure, which a new bot can retry once the host is there.
	if (at.waitingForHostMs != null && at.waitingForHostMs >= limits.max_wait_for_host)
		return endingFor(
			"join_failure",
			`the host did not start the meeting within ${duration(limits.max_wait_for_host)} (max_wait_for_host): ` +
				"the page kept saying it has not started, as it also does for a link to no meeting",
		);
	if (at.inLobbyMs !== null && at.inLobbyMs >= limits.max_wait_for_admission)
		return leaving(
			"awaiting_admission_timeout",
			`lobby wait exceeded ${seconds(limits.max_wait_for_admission)}: nobody admitted the bot (max_wait_for_admission)`,
		);
	const call = at.call;
	if (!call) return null;
	if (call.aloneMs !== null && call.aloneMs >= limits.max_time_left_alone)
		return leaving("left_alone", `everyone else left; alone for ${seconds(limits.max_time_left_alone)} (max_time_left_alone)`);
	if (!call.everJoined && call.sinceAdmittedMs >= limits.no_one_joined_timeout)
		return leaving(
			"startup_alone",
			`no one else joined within ${seconds(limits.no_one_joined_timeout)} of admission (no_one_joined_timeout)`,
		);
	if (limits.silence_timeout !== null && call.silentMs >= limits.silence_timeout)
		return leaving("stopped", `silence_timeout: no one spoke for ${seconds(limits.silence_timeout)}`);
	return null;
}
