import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import type { PlanFrame } from "../../src/meetings/status-writes";
import type { TimerHandlers } from "../shared/alarm-timers";
import { type FeedContext, type FeedTimerName, feedContextOf } from "./context";
import { FeedSockets } from "./sockets";
import type { MeetingRefIn } from "./subscriptions";
import { FeedWatchers } from "./watchers";

export { CONTROL_FRAME_BURST, CONTROL_FRAMES_PER_SECOND, MAX_SUBSCRIPTIONS_PER_SOCKET } from "./sockets";

/** The RPC surface: what rooms and Workers call on a user's feed (fetch and the webSocket handlers are the runtime's). */
export const LIVE_FEED_RPC = ["deliver", "deliverPlanSteps", "follow", "claimLink", "streamOpened", "revalidate"] as const;

/**
 * One per user: that user's /ws connections (hibernatable). A MeetingRoom delivers each live
 * message once per subscribed user; this object sends it to each socket subscribed to it
 * (watchers.ts). The sockets' own frames are sockets.ts's. Control work (subscribe,
 * unsubscribe, follow, revalidate, close) runs one at a time, so a revocation never races a
 * subscribe that read the old membership.
 */
export class LiveFeed extends DurableObject<Env> {
	readonly #feed: FeedContext = feedContextOf(this.ctx, () => this.env);
	readonly #watchers = new FeedWatchers(this.#feed);
	readonly #sockets = new FeedSockets(this.#feed, this.#watchers);

	override fetch(request: Request): Promise<Response> {
		return this.#sockets.accept(request);
	}

	/** Sends a message to this user's sockets subscribed to the meeting; false when there are none. */
	deliver(meetingId: number, text: string): Promise<boolean> {
		return this.#watchers.deliver(meetingId, text);
	}

	/** Sends the frames of steps made in bulk (a calendar sync's plans) to the sockets watching each meeting. */
	deliverPlanSteps(frames: PlanFrame[]): Promise<void> {
		return this.#watchers.deliverPlanSteps(frames);
	}

	/** Moves this user's subscriptions from an ended meeting to the new meeting on its link, if the user may read it. */
	follow(fromMeetingId: number, toMeetingId: number): Promise<boolean> {
		return this.#watchers.follow(fromMeetingId, toMeetingId);
	}

	/**
	 * A meeting of this user's was just made on a link (its room calls this before announcing
	 * it): the sockets waiting on that link watch it from now on. True when any do, so the room
	 * counts this user among its watchers. Only the owner's feed is called, and the meeting must
	 * be one this user may read: a later meeting on the link by anyone else reaches nobody here.
	 */
	claimLink(meetingId: number, link: MeetingRefIn): Promise<boolean> {
		return this.#feed.queue.run(() => this.#watchers.bindWaiting(meetingId, link));
	}

	/** The user opened a meeting stream (SSE): the next revalidation asks its room too. */
	streamOpened(userId: number, meetingId: number): Promise<void> {
		return this.#feed.queue.run(() => this.#feed.streams.opened(userId, meetingId));
	}

	/**
	 * Drops subscriptions the user may no longer read (a membership removed, a meeting unbound
	 * or rebound, a key revoked), and has the rooms end their meeting streams that lost access.
	 */
	revalidate(meetingIds?: number[]): Promise<void> {
		return this.#watchers.revalidate(meetingIds);
	}

	/** A socket's key reached its expiry (the `key_expiry` timer): its sockets end, and the next expiry is armed. */
	override alarm(): Promise<void> {
		return this.#feed.timers.fire(this.#timerActions);
	}

	readonly #timerActions: TimerHandlers<FeedTimerName> = {
		key_expiry: () => this.#feed.queue.run(() => this.#watchers.closeEndedKeys()),
	};

	override webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		return this.#sockets.message(socket, data);
	}

	override webSocketClose(socket: WebSocket, code?: number, reason?: string): Promise<void> {
		return this.#sockets.closed(socket, code, reason);
	}

	override webSocketError(socket: WebSocket): Promise<void> {
		return this.#sockets.closed(socket);
	}
}
