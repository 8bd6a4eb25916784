import { eq } from "drizzle-orm";
import { type MeetingRow, meetings } from "../db/schema";
import type { Env } from "../env";
import type { MeetingPlacement } from "../live/frames";
import { hasDataKey, patchMeetingData } from "./meeting-data";
import type { MeetingStatus } from "./status-machine";

/**
 * `data.placement` in D1 (written through meeting-data.ts): what a meeting waiting for a bot host waits on (docs/api.md#waiting-for-a-bot-host).
 * Written by the meeting's room only, and only while the record is still in the status the room
 * knows; a status move out of `requested` removes it in the same write (status-writes.ts).
 */

/** Sets `data.placement`; the record as written, or undefined when it has moved on. */
export async function writePlacement(
	env: Env,
	meetingId: number,
	status: MeetingStatus,
	placement: MeetingPlacement,
): Promise<MeetingRow | undefined> {
	return patchMeetingData(env, meetingId, { placement }, { where: eq(meetings.status, status) });
}

/** Removes `data.placement` (a host claimed the attempt); nothing is written when there is none. */
export async function clearPlacement(env: Env, meetingId: number): Promise<void> {
	await patchMeetingData(env, meetingId, { placement: null }, { where: hasDataKey("placement") });
}

/** `data.placement` of a record, when it holds one (the room wrote it: only its shape is checked). */
export function placementOf(data: Record<string, unknown>): MeetingPlacement | null {
	const value = data.placement;
	return value && typeof value === "object" && typeof (value as { detail?: unknown }).detail === "string"
		? (value as MeetingPlacement)
		: null;
}
