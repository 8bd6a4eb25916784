/**
 * A meeting's screenshots, as its room keeps count of them (docs/bot-channel.md#screenshots):
 * the names each attempt's bot stored, reserved one at a time so that concurrent uploads cannot
 * pass SCREENSHOTS_PER_ATTEMPT; and their retention, a timer armed when the meeting ends that
 * deletes them all SCREENSHOT_RETENTION_DAYS later (docs/api.md#help-and-diagnostics).
 */
import { deleteMeetingScreenshots } from "../../src/meetings/meeting-objects";
import { SCREENSHOTS_PER_ATTEMPT } from "../../src/screenshots/screenshots";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext } from "./context";

/** What the screenshots' count and retention use of the room. */
export type ScreenshotsHost = Pick<RoomContext, "env" | "storage" | "timers">;

import { ROOM_KEYS } from "./storage";

/** Whose screenshots the retention timer deletes: kept apart from the room's state, which a room may forget. */
interface ScreenshotOwner {
	userId: number;
	meetingId: number;
}

/**
 * Reserves `name` for the attempt's bot: true when it already holds it (a retry replaces its
 * bytes) or may take one more. The read and the write are storage operations with nothing
 * between them, so no other upload's reservation interleaves.
 */
export async function reserveScreenshot(room: ScreenshotsHost, attempt: number, name: string): Promise<boolean> {
	const key = ROOM_KEYS.screenshotNames(attempt);
	const names = (await room.storage.get<string[]>(key)) ?? [];
	if (names.includes(name)) return true;
	if (names.length >= SCREENSHOTS_PER_ATTEMPT) return false;
	await room.storage.put(key, [...names, name]);
	return true;
}

/** The meeting ended: its screenshots go SCREENSHOT_RETENTION_DAYS from now. */
export async function armScreenshotRetention(room: ScreenshotsHost, owner: ScreenshotOwner): Promise<void> {
	await room.storage.put(ROOM_KEYS.screenshotOwner, owner);
	await room.timers.set("screenshots_expire", Date.now() + setting(room.env, "SCREENSHOT_RETENTION_DAYS") * 86_400_000);
}

/** The retention timer: every screenshot of the meeting goes (a failure throws, and the timer tries again). */
export async function screenshotsExpired(room: ScreenshotsHost): Promise<void> {
	const owner = await room.storage.get<ScreenshotOwner>(ROOM_KEYS.screenshotOwner);
	if (!owner) return;
	const deleted = await deleteMeetingScreenshots(room.env, owner.userId, owner.meetingId);
	if (deleted > 0) console.log("screenshots past their retention deleted", owner.meetingId, deleted);
	await room.storage.delete(ROOM_KEYS.screenshotOwner);
}
