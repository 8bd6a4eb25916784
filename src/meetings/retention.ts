/**
 * The retention sweep (docs/retention.md), run by the minute cron: an ended meeting whose end is
 * further back than its owner's window (the account's `retention_days`, else RETENTION_DAYS)
 * loses its media (recordings' objects and rows), screenshots, diagnostics, search rows and
 * stream log; its record and transcript stay. A bounded batch per run; a meeting a store refused
 * is not marked, so the next run tries it again. A window changed later applies to meetings
 * already ended: each run reads the windows as they are.
 */
import type { Env } from "../env";
import { errorName } from "../error-text";
import { meetingStream } from "../objects";
import { meetingScreenshotsPrefix } from "../screenshots/screenshots";
import { forgetInPartition } from "../search/partitions";
import { setting } from "../settings/deployment-defaults";
import { recordingIdsOf } from "./meeting-erasure-store";
import { deletePrefix, meetingRecordingsPrefix } from "./meeting-objects";
import { type ExpiredMeeting, expiredMeetings, markExpired } from "./retention-store";

/** Meetings per run: each costs a few bucket, object and D1 calls, well inside a cron invocation's subrequests. */
export const RETENTION_SWEEP_BATCH = 20;

/** One meeting's media and the rest go; the record is marked last, so a failure leaves it to the next run. */
async function expire(env: Env, meeting: ExpiredMeeting, at: string): Promise<void> {
	await deletePrefix(env.RECORDINGS, meetingRecordingsPrefix(meeting.userId, meeting.id));
	await deletePrefix(env.RECORDINGS, meetingScreenshotsPrefix(meeting.userId, meeting.id));
	await meetingStream(env, meeting.id).erase();
	await markExpired(env, meeting.id, await recordingIdsOf(env, meeting.id), at);
	// The mark already logged the meeting for its partition (the cron's catch-up would drop it); this is sooner.
	await forgetInPartition(env, meeting);
}

/** Sweeps one batch; how many meetings' media went. */
export async function sweepRetention(env: Env, now: Date): Promise<number> {
	let due: ExpiredMeeting[];
	try {
		due = await expiredMeetings(env, now, Math.max(0, setting(env, "RETENTION_DAYS")), RETENTION_SWEEP_BATCH);
	} catch (err) {
		// The cron's other work (the search catch-up) goes on; the next tick reads again.
		console.error("retention: the sweep could not read its meetings", errorName(err));
		return 0;
	}
	let swept = 0;
	for (const meeting of due) {
		try {
			await expire(env, meeting, now.toISOString());
			swept += 1;
		} catch (err) {
			console.error("retention: a meeting's media wait for the next sweep", meeting.id, errorName(err));
		}
	}
	return swept;
}
