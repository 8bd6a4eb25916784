/**
 * Who may keep reading the meeting's stream (docs/meeting-stream.md#access-after-the-stream-opens).
 * The Worker checks a reader when the stream opens. A reader whose access ends afterwards (their
 * membership removed, the meeting unbound or rebound, the key they opened it with revoked or
 * expired) gets a final `error` event and the stream closes. That is checked when access
 * changes, by the revalidation that drops /ws subscriptions, and as a net once per keepalive
 * period while streams are open (it also catches an expiry, and a change that raced an open).
 */
import { keysStandingNow } from "../../src/agent/caller";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { readersAmong } from "../../src/meetings/meeting-store";
import type { StreamContext } from "./context";
import type { StreamReader } from "./log";

export const MEETING_UNREADABLE =
	"You can no longer read this meeting (your membership of its workspace or its binding changed, or it was deleted)";
export const KEY_ENDED = "The API key this stream was opened with was revoked or has expired";

export class StreamAccess {
	/** The meeting the streams are of, learned when one opens. */
	#meetingId: number | null = null;
	#net: ReturnType<typeof setInterval> | null = null;
	#netRunning = false;

	constructor(
		readonly stream: StreamContext,
		readonly netEveryMs: number,
	) {}

	/** The stream after `lastEventId` for a reader the Worker has just checked. */
	open(meetingId: number, lastEventId: number | null, reader: StreamReader): Response {
		this.#meetingId = meetingId;
		const response = this.stream.log.open(lastEventId, reader);
		this.#startNet();
		return response;
	}

	/**
	 * Ends the streams of readers (every one, or `userId`'s) whose access ended; answers how many
	 * streams of theirs stay open. A check that cannot be made now ends nothing.
	 */
	async revalidate(meetingId: number, userId?: number): Promise<number> {
		const mine = (who: StreamReader) => userId === undefined || who.userId === userId;
		const readers = this.stream.log.holders().filter(mine);
		if (readers.length === 0) return 0;
		const lost = await lostAccess(this.stream.env, meetingId, readers);
		this.stream.log.endFor((who) => lost.get(readerKey(who)) ?? null);
		return this.stream.log.holders().filter(mine).length;
	}

	#startNet(): void {
		if (this.#net !== null) return;
		this.#net = setInterval(() => {
			const meetingId = this.#meetingId;
			if (this.stream.log.readers() === 0 || meetingId === null) {
				if (this.#net !== null) clearInterval(this.#net);
				this.#net = null;
				return;
			}
			if (this.#netRunning) return;
			this.#netRunning = true;
			const check = this.revalidate(meetingId)
				.catch((err: unknown) => console.error("stream access check failed", errorName(err)))
				.finally(() => {
					this.#netRunning = false;
				});
			this.stream.waitUntil(check);
		}, this.netEveryMs);
	}
}

const readerKey = (who: StreamReader) => `${who.userId}:${who.tokenId}`;

/** Of some readers, those who lost access, with why: a few queries however many readers and keys there are. */
async function lostAccess(env: Env, meetingId: number, readers: StreamReader[]): Promise<Map<string, string>> {
	const readable = await readersAmong(env, meetingId, [...new Set(readers.map((who) => who.userId))]);
	const standing = await keysStandingNow(env, readers);
	const lost = new Map<string, string>();
	for (const who of readers) {
		if (!readable.has(who.userId)) lost.set(readerKey(who), MEETING_UNREADABLE);
		else if (!standing.has(who.tokenId)) lost.set(readerKey(who), KEY_ENDED);
	}
	return lost;
}
