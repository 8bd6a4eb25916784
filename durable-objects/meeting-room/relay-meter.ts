/**
 * The meeting's side of the transcription relay's meter (src/bots/relay-meter.ts): only the
 * current attempt's bot may transcribe, as only it may hold the channel, and the meeting's bot
 * may send at most TRANSCRIPTION_RELAY_AUDIO_RATIO seconds of audio per second the meeting has
 * been active (drafts re-send a growing utterance), plus a first allowance for the join.
 */
import { isLive } from "../../src/meetings/status-machine";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext } from "./context";

/** What metering the relay uses of the room. */
export type RelayMeterHost = Pick<RoomContext, "env" | "state" | "storage">;

import { ROOM_KEYS } from "./storage";

/** Audio a meeting may relay before it has been active at all, or on top of its ratio: its bot's first utterances. */
export const RELAY_FIRST_ALLOWANCE_S = 120;

export type RelayAllowance = { ok: true; meetingSeconds: number } | { ok: false; status: 409 | 429; detail: string };

/** Checks the attempt and the meeting's allowance, and counts `seconds` when both allow them. */
export async function meterRelayedAudio(room: RelayMeterHost, attempt: number, seconds: number): Promise<RelayAllowance> {
	const state = await room.state();
	if (!state || !isLive(state.machine.status)) return { ok: false, status: 409, detail: "The meeting is not live" };
	if (attempt !== state.attempt) {
		return { ok: false, status: 409, detail: "This bot was replaced: only the meeting's current bot may transcribe" };
	}
	const used = (await room.storage.get<number>(ROOM_KEYS.relayedAudio)) ?? 0;
	const activeS = state.startTime ? Math.max(0, (Date.now() - Date.parse(state.startTime)) / 1000) : 0;
	const allowed = RELAY_FIRST_ALLOWANCE_S + activeS * Math.max(0, setting(room.env, "TRANSCRIPTION_RELAY_AUDIO_RATIO"));
	if (used + seconds > allowed) {
		return {
			ok: false,
			status: 429,
			detail: `This meeting's bot has sent ${Math.round(used)} s of audio to transcribe in ${Math.round(activeS)} s active: no more now`,
		};
	}
	await room.storage.put(ROOM_KEYS.relayedAudio, used + seconds);
	return { ok: true, meetingSeconds: used + seconds };
}
