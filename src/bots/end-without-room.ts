import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { initialState, type MeetingStatus } from "../meetings/status-machine";
import { announceInRoom, moveMeeting } from "../meetings/status-writes";
import { accountObject } from "../objects";
import { slotKey } from "./launch";

/**
 * A user's stop for a live meeting that no room holds (a launch broke before the hand-off, or
 * the room lost it): the stop goes through the status machine as the room would make it
 * (`completed`, `stopped`) and the link's slot is released. A bot still out there is refused
 * (409) at its channel and leaves.
 * False when the record moved meanwhile (the caller reads it again).
 */
export async function endWithoutRoom(env: Env, row: MeetingRow): Promise<boolean> {
	const current = initialState(row.status as MeetingStatus);
	const ended = await moveMeeting(env, { meetingId: row.id, current, ask: { to: "completed", actor: "user" } }, announceInRoom(env));
	if (!ended.ok || !ended.step) return false;
	if (row.nativeMeetingId) await accountObject(env, row.userId).releaseBotSlot(slotKey(row.platform, row.nativeMeetingId));
	return true;
}
