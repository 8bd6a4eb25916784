/**
 * The meetings where one user has meeting streams (SSE) open, kept beside their /ws
 * subscriptions so that the one revalidation (a membership removed, a key revoked) reaches both.
 * The meetings' MeetingStream objects hold the streams; this only says which to ask. The LiveFeed runs both methods
 * on its serial queue, so an opening never races a revalidation's bookkeeping.
 */
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { meetingStream } from "../../src/objects";
import { LIVE_FEED_STORAGE } from "./storage";

/** Meetings remembered per user, the newest openings; a stream past them still ends at its MeetingStream's own re-check. */
export const MAX_STREAMED_MEETINGS = 100;

const KEY = LIVE_FEED_STORAGE.keys.streams;

interface Streamed {
	userId: number;
	/** Oldest opening first. */
	meetingIds: number[];
}

export class FeedStreams {
	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
	) {}

	async opened(userId: number, meetingId: number): Promise<void> {
		const held = (await this.storage.get<Streamed>(KEY))?.meetingIds ?? [];
		const meetingIds = [...held.filter((id) => id !== meetingId), meetingId].slice(-MAX_STREAMED_MEETINGS);
		await this.storage.put(KEY, { userId, meetingIds } satisfies Streamed);
	}

	/** Asks each meeting's stream object (of the given meetings, or all) to end this user's streams that lost access; forgets meetings left with none. */
	async revalidate(meetingIds?: number[]): Promise<void> {
		const held = await this.storage.get<Streamed>(KEY);
		if (!held) return;
		const asked = meetingIds ? held.meetingIds.filter((id) => meetingIds.includes(id)) : held.meetingIds;
		const closed = new Set<number>();
		for (const meetingId of asked) {
			try {
				if ((await meetingStream(this.env, meetingId).revalidateReaders(meetingId, held.userId)) === 0) closed.add(meetingId);
			} catch (err) {
				// One stream object out of reach keeps its entry (and its own re-check); the others are still asked.
				console.error("stream revalidation failed", errorName(err));
			}
		}
		if (closed.size > 0) await this.storage.put(KEY, { ...held, meetingIds: held.meetingIds.filter((id) => !closed.has(id)) });
	}
}
