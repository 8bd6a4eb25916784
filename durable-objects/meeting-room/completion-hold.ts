import type { MeetingRow } from "../../src/db/schema";
import { errorName } from "../../src/error-text";
import { findOwnedMeeting } from "../../src/meetings/meeting-store";
import type { StatusStep } from "../../src/meetings/status-writes";
import type { SummaryClaim } from "../../src/meetings/summary-claim";
import { withScreenshotLinks } from "../../src/screenshots/screenshots";
import { setting } from "../../src/settings/deployment-defaults";
import type { RoomContext } from "./context";
import { ROOM_KEYS } from "./storage";

/** The step's `meeting.completed` event, held back until the summary is in it (or the wait is over). */
export interface HeldCompletion {
	userId: number;
	meetingId: number;
	step: StatusStep;
	/** The record at the step, for a meeting deleted before the event goes. */
	row: MeetingRow;
}

/** What holding a completion uses of the room. */
export type CompletionHost = Pick<RoomContext, "env" | "storage" | "timers" | "webhooks" | "sendNotices" | "stream">;

/** After the model call's own timeout, how much longer `meeting.completed` waits for a summary whose storing keeps failing. */
const RELEASE_GRACE_S = 30;

/**
 * A completed meeting's summary is made by its MeetingStream (meeting-stream/summary.ts); the
 * room only holds the completion's `meeting.completed` until the stream says the summary is
 * stored (MeetingRoom.summaryStored), or until `summary_release` says the wait is over.
 */
export class CompletionHold {
	constructor(private readonly room: CompletionHost) {}

	/**
	 * At the step to `completed`: the stream claims the record's summary; a failure to claim it
	 * leaves the completion as it was (logged), never stops it. When the summary is being made,
	 * `summary_release` is armed for the latest the event may wait.
	 */
	async claim(row: MeetingRow): Promise<SummaryClaim> {
		let claim: SummaryClaim;
		try {
			claim = await this.room.stream(row.id).summaryBegin(row);
		} catch (err) {
			console.error("the meeting summary was not begun", row.id, errorName(err));
			return { row, hold: false };
		}
		if (claim.hold) {
			const wait = setting(this.room.env, "SUMMARY_TIMEOUT_S") + RELEASE_GRACE_S;
			await this.room.timers.set("summary_release", Date.now() + wait * 1000);
		}
		return claim;
	}

	/** The stored entry that holds the step's `meeting.completed` (its record as shown at the step). */
	entry(step: StatusStep, shown: MeetingRow): Record<string, HeldCompletion> {
		return { [ROOM_KEYS.heldCompletion]: { userId: shown.userId, meetingId: shown.id, step, row: shown } };
	}

	/**
	 * Sends the held `meeting.completed` with the record as it is now (the summary `pending` if the
	 * wait ran out). With `meetingId` (the stream's word), only that meeting's.
	 */
	async release(meetingId?: number): Promise<void> {
		const storage = this.room.storage;
		const held = await storage.get<HeldCompletion>(ROOM_KEYS.heldCompletion);
		if (held && meetingId !== undefined && held.meetingId !== meetingId) return;
		if (held) {
			const fresh = (await findOwnedMeeting(this.room.env, held.userId, held.meetingId)) ?? held.row;
			const shown: MeetingRow = { ...fresh, data: await withScreenshotLinks(this.room.env, fresh.id, fresh.data) };
			const entries = await this.room.webhooks.prepare(shown, ["meeting.completed"], held.step);
			// No await between the two: one coalesced write, so the event is either still held or on its way, never both.
			const put = storage.put(entries);
			const unheld = storage.delete(ROOM_KEYS.heldCompletion);
			await Promise.all([put, unheld]);
			await this.room.sendNotices();
		}
		await this.room.timers.clear("summary_release");
	}
}
