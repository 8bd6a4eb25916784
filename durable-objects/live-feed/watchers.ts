/**
 * The room-facing side of a user's feed: live messages delivered to the sockets watching a
 * meeting, subscriptions moved to a new meeting on the same link, and access checked again
 * (a membership removed, a key revoked or expired), with the rooms told who no longer watches.
 */
import { KEY_ENDED_FRAME } from "../../src/live/feed-messages";
import type { LiveFrame } from "../../src/live/frames";
import { findReadableMeeting, readableAmong } from "../../src/meetings/meeting-store";
import type { PlanFrame } from "../../src/meetings/status-writes";
import { meetingRoom } from "../../src/objects";
import { closeQuietly } from "../shared/sockets";
import type { FeedContext } from "./context";
import { type MeetingRefIn, refKey, tagOf } from "./subscriptions";

/** Sends one frame; a socket closing right now is left to its close handler, which unsubscribes it. */
export function sendFrame(socket: WebSocket, message: LiveFrame | string): void {
	try {
		socket.send(typeof message === "string" ? message : JSON.stringify(message));
	} catch {
		// a socket closing right now; its close handler unsubscribes it
	}
}

export type WatchersHost = Pick<FeedContext, "env" | "state" | "subs" | "streams" | "keys" | "queue">;

export class FeedWatchers {
	constructor(private readonly feed: WatchersHost) {}

	/** Sends a message to this user's sockets subscribed to the meeting; false when there are none. */
	async deliver(meetingId: number, text: string): Promise<boolean> {
		await this.feed.subs.ready();
		const sockets = this.feed.subs.watching(String(meetingId));
		if (sockets.size === 0) return false;
		for (const socket of sockets) sendFrame(socket, text);
		return true;
	}

	/**
	 * Sends the frames of steps made in bulk (a calendar sync's plans) to the sockets watching
	 * each meeting. A plan just made (a frame with its link, sent to its owner's feed only) is
	 * watched from now on by the sockets waiting on its link, and also reaches the sockets that
	 * subscribed with its link for an older meeting on it.
	 */
	async deliverPlanSteps(frames: PlanFrame[]): Promise<void> {
		const { subs } = this.feed;
		const claimed = await this.feed.queue.run(async () => {
			const ids: number[] = [];
			for (const frame of frames) if (frame.link && (await this.bindWaiting(frame.meetingId, frame.link))) ids.push(frame.meetingId);
			return ids;
		});
		const userId = this.#userId();
		if (userId) for (const meetingId of claimed) await meetingRoom(this.feed.env, meetingId).addSubscriber(userId);
		await subs.ready();
		const byLink = frames.some((f) => f.link) ? subs.byLink() : new Map<string, Set<WebSocket>>();
		for (const frame of frames) {
			const sockets = new Set(subs.watching(String(frame.meetingId)));
			for (const socket of frame.link ? (byLink.get(refKey(frame.link)) ?? []) : []) sockets.add(socket);
			for (const socket of sockets) sendFrame(socket, frame.text);
		}
	}

	/**
	 * Moves this user's subscriptions from an ended meeting to the new meeting on its link, if
	 * the user may read it; false when no socket of theirs still watches the old one.
	 */
	follow(fromMeetingId: number, toMeetingId: number): Promise<boolean> {
		const { subs } = this.feed;
		return this.feed.queue.run(async () => {
			await subs.ready();
			const watchers = [...subs.watching(String(fromMeetingId))];
			const userId = watchers[0] && tagOf(watchers[0])?.userId;
			if (!userId) return false;
			if (!(await findReadableMeeting(this.feed.env, userId, toMeetingId))) return true;
			for (const socket of watchers) {
				const ref = subs.of(socket).get(String(fromMeetingId));
				if (!ref) continue;
				subs.remove(socket, String(fromMeetingId));
				subs.add(socket, String(toMeetingId), ref);
				await subs.save(socket);
			}
			await meetingRoom(this.feed.env, toMeetingId).addSubscriber(userId);
			return false;
		});
	}

	/** Inside the queue: moves the sockets waiting on `link` onto the meeting, if the user may read it. */
	async bindWaiting(meetingId: number, link: MeetingRefIn): Promise<boolean> {
		const { subs } = this.feed;
		await subs.ready();
		const key = refKey(link);
		const sockets = subs.waitingOn(key);
		const userId = sockets[0] && tagOf(sockets[0])?.userId;
		if (!userId || !(await findReadableMeeting(this.feed.env, userId, meetingId))) return false;
		for (const socket of sockets) {
			const ref = subs.waitingOf(socket).get(key) ?? link;
			subs.removeWaiting(socket, key);
			subs.add(socket, String(meetingId), ref);
			await subs.save(socket);
		}
		return true;
	}

	/** The user whose feed this is, as its sockets say; undefined while none is open. */
	#userId(): number | undefined {
		return this.feed.state
			.getWebSockets()
			.map((s) => tagOf(s)?.userId)
			.find(Boolean);
	}

	/**
	 * Drops subscriptions the user may no longer read, telling each affected socket with an
	 * `unsubscribed` frame, and has the rooms end their meeting streams that lost access. Checks
	 * the given meetings, or every subscribed and streamed one; checking all of them, it also
	 * closes the sockets whose key no longer stands.
	 */
	revalidate(meetingIds?: number[]): Promise<void> {
		const { subs } = this.feed;
		return this.feed.queue.run(async () => {
			await this.feed.streams.revalidate(meetingIds);
			if (!meetingIds) await this.closeEndedKeys();
			await subs.ready();
			const ids = (meetingIds?.map(String) ?? subs.meetingIds()).filter((id) => subs.watching(id).size > 0);
			const userId = this.#userId();
			if (ids.length === 0 || !userId) return;
			const readable = await readableAmong(this.feed.env, userId, ids.map(Number));
			const revoked = ids.filter((id) => !readable.has(Number(id)));
			const lost = new Map<WebSocket, MeetingRefIn[]>();
			for (const id of revoked) {
				for (const socket of [...subs.watching(id)]) {
					const ref = subs.of(socket).get(id);
					subs.remove(socket, id);
					if (ref) lost.set(socket, [...(lost.get(socket) ?? []), ref]);
				}
			}
			for (const [socket, refs] of lost) {
				await subs.save(socket);
				sendFrame(socket, { type: "unsubscribed", meetings: refs, reason: "access_revoked" });
			}
			for (const id of revoked) await meetingRoom(this.feed.env, Number(id)).removeSubscriber(userId);
		});
	}

	/** Inside the queue: ends the open sockets whose key was revoked or has expired, with a last error frame. */
	async closeEndedKeys(): Promise<void> {
		const ended = await this.feed.keys.ended();
		if (ended.length > 0) await this.feed.subs.ready();
		for (const { socket, userId } of ended) {
			sendFrame(socket, KEY_ENDED_FRAME);
			closeQuietly(socket, 4401, "api key ended");
			// A close from this side brings no webSocketClose: the socket's subscriptions go now.
			await this.dropUnwatched(await this.feed.subs.forget(socket), userId);
		}
	}

	/** Tells rooms this user no longer watches them, once no other socket of theirs does. */
	async dropUnwatched(meetingIds: string[], userId: number): Promise<void> {
		for (const meetingId of meetingIds) {
			if (this.feed.subs.watching(meetingId).size === 0) await meetingRoom(this.feed.env, Number(meetingId)).removeSubscriber(userId);
		}
	}
}
