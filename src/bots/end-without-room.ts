import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { nowIso, updateIfStatus } from "../meetings/meeting-store";
import { initialState, type MeetingStatus, transition } from "../meetings/status-machine";
import { accountObject } from "../objects";
import { stopBot } from "./bot-host-client";
import { slotKey } from "./launch";

/**
 * A user's stop for a live meeting that no room holds (a launch broke before the hand-off, or
 * the room lost it): the stop goes through the status machine as the room would make it
 * (`completed`, `stopped`), the link's slot is released, and the bot host drops any bot.
 * False when the record moved meanwhile (the caller reads it again).
 */
export async function endWithoutRoom(env: Env, row: MeetingRow): Promise<boolean> {
	const from = row.status as MeetingStatus;
	const result = transition(initialState(from), { to: "completed", actor: "user" });
	if (!result.ok || !result.changed) return false;
	const ended = await updateIfStatus(env, row.id, [from], {
		status: result.state.status,
		completionReason: result.state.completion_reason,
		failureStage: result.state.failure_stage,
		endTime: nowIso(),
	});
	if (!ended) return false;
	if (row.nativeMeetingId) await accountObject(env, row.userId).releaseBotSlot(slotKey(row.platform, row.nativeMeetingId));
	await stopBot(env, row.id);
	return true;
}
