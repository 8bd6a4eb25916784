/**
 * What a meeting keeps in the recordings bucket: its recordings' media
 * (`recordings/<user>/<meeting>/…`, every file and part), its bots' screenshots
 * (`screenshots/<user>/<meeting>/<attempt>/<name>`) and its kept transcript renderings
 * (`transcript-cache/<meeting>/`). They go with the meeting's record; the media and screenshots
 * also once the retention window passed, and the screenshots SCREENSHOT_RETENTION_DAYS after it
 * ended (docs/retention.md).
 */
import type { Env } from "../env";
import { errorName } from "../error-text";
import { meetingScreenshotsPrefix } from "../screenshots/screenshots";
import { transcriptCachePrefix } from "./transcript-cache";

/** The keys under `prefix`, one listed page at a time. */
export async function* keyPages(bucket: R2Bucket, prefix: string): AsyncGenerator<string[]> {
	for (let page = await bucket.list({ prefix }); ; page = await bucket.list({ prefix, cursor: page.cursor })) {
		yield page.objects.map((o) => o.key);
		if (!page.truncated) return;
	}
}

/** Deletes every object under `prefix`, a listed page at a time; how many went. */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
	let deleted = 0;
	for await (const keys of keyPages(bucket, prefix)) {
		if (keys.length > 0) await bucket.delete(keys);
		deleted += keys.length;
	}
	return deleted;
}

/** Every media object of a meeting's recordings, all attempts. */
export const meetingRecordingsPrefix = (userId: number, meetingId: number) => `recordings/${userId}/${meetingId}/`;

/** The kinds of object a meeting keeps, each under its own prefix: what its deletion lists and removes. */
export function meetingObjectPrefixes(userId: number, meetingId: number) {
	return {
		recordings: meetingRecordingsPrefix(userId, meetingId),
		screenshots: meetingScreenshotsPrefix(userId, meetingId),
		transcript_cache: transcriptCachePrefix(meetingId),
	};
}
export type MeetingObjectKind = keyof ReturnType<typeof meetingObjectPrefixes>;

/** A meeting's screenshots, all attempts. */
export function deleteMeetingScreenshots(env: Env, userId: number, meetingId: number): Promise<number> {
	return deletePrefix(env.RECORDINGS, meetingScreenshotsPrefix(userId, meetingId));
}

/**
 * Everything the bucket keeps for a meeting whose record is gone, best-effort: the record's
 * removal stands whatever the bucket does; what is left is logged, and the screenshots' retention
 * timer, or the bucket's lifecycle rule, still ends them.
 */
export async function deleteMeetingObjects(env: Env, userId: number, meetingId: number): Promise<void> {
	for (const prefix of Object.values(meetingObjectPrefixes(userId, meetingId))) {
		try {
			await deletePrefix(env.RECORDINGS, prefix);
		} catch (err) {
			console.error("meeting objects left behind", prefix, errorName(err));
		}
	}
}
