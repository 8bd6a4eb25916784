import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import { PLATFORMS } from "../../src/bot-channel/protocol";
import type { Env } from "../../src/env";
import { KEY_ENDED_FRAME, KEY_EXPIRES_HEADER, KEY_ID_HEADER, refusedSocket } from "../../src/live/feed-messages";
import type { ErrorFrame, LiveFrame, SubscribedFrame, UnsubscribedFrame } from "../../src/live/frames";
import { findMeetingOnLink, findReadableMeeting, readableAmong } from "../../src/meetings/meeting-store";
import type { PlanFrame } from "../../src/meetings/status-writes";
import { meetingRoom } from "../../src/objects";
import { setting } from "../../src/settings/deployment-defaults";
import { SerialQueue } from "../shared/serial-queue";
import { closeQuietly } from "../shared/sockets";
import { type TokenBucket, takeToken } from "../shared/token-bucket";
import { SocketKeys } from "./socket-keys";
import { FeedStreams } from "./streams";
import { FeedSubscriptions, type MeetingRefIn, refKey, type SocketTag, tagOf } from "./subscriptions";

/** Client → server control messages of /ws (docs/live-feed.md#client--server). */
const MeetingRef = z.object({ platform: z.string().min(1).max(40), native_id: z.string().min(1).max(300) });
const Control = z.object({ action: z.string() }).passthrough();
const Subscribe = z.object({ action: z.literal("subscribe"), meetings: z.array(MeetingRef).min(1).max(100) });
const Unsubscribe = z.object({ action: z.literal("unsubscribe"), meetings: z.array(MeetingRef).max(100) });

/** Meetings one connection may watch at once. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 200;
/** Control frames per second per connection, and the burst allowed above that rate. */
export const CONTROL_FRAMES_PER_SECOND = 20;
export const CONTROL_FRAME_BURST = 30;
/** Open connections one user may hold at once (LIVE_FEED_MAX_SOCKETS); the next is refused until one closes. */

const tooManySubscriptions = (held: number, adding: number): ErrorFrame => ({
	type: "error",
	error: "invalid_subscribe_payload",
	details: [`At most ${MAX_SUBSCRIPTIONS_PER_SOCKET} meetings per connection: this one watches ${held}, the request adds ${adding}`],
});
// The /ws error codes are a closed list (docs/live-feed.md#client--server): a refused connection and a
// throttled frame reuse the gateway's 429 shape.
const tooManySockets = (max: number) => ({
	error: "authorization_service_error",
	status: 429,
	detail: `Too many live connections: at most ${max} per user are open at once; close one first`,
});
const tooManyFrames: ErrorFrame = {
	type: "error",
	error: "authorization_service_error",
	status: 429,
	detail: `Rate limit exceeded: at most ${CONTROL_FRAMES_PER_SECOND} control messages per second`,
};

function send(socket: WebSocket, message: LiveFrame): void {
	try {
		socket.send(JSON.stringify(message));
	} catch {
		// a socket closing right now; its close handler unsubscribes it
	}
}

/** The RPC surface: what rooms and Workers call on a user's feed (fetch and the webSocket handlers are the runtime's). */
export const LIVE_FEED_RPC = ["deliver", "deliverPlanSteps", "follow", "claimLink", "streamOpened", "revalidate"] as const;

/**
 * One per user: that user's /ws connections (hibernatable). A MeetingRoom delivers each live
 * message once per subscribed user; this object sends it to each socket subscribed to it.
 * Control work (subscribe, unsubscribe, follow, revalidate, close) runs one at a time, so a
 * revocation never races a subscribe that read the old membership.
 */
export class LiveFeed extends DurableObject<Env> {
	private readonly subs = new FeedSubscriptions(this.ctx.storage, () => this.ctx.getWebSockets());
	/** Where this user has meeting streams (SSE) open: a revalidation reaches them too. */
	private readonly streams = new FeedStreams(this.ctx.storage, this.env);
	/** The keys the sockets stand on: a revoked or expired key ends its sockets. */
	private readonly keys = new SocketKeys(this.ctx, this.env);
	/** Per-connection token buckets for control frames; a wake-up from hibernation starts full. */
	private readonly buckets = new WeakMap<WebSocket, TokenBucket>();
	private readonly queue = new SerialQueue();

	override async fetch(request: Request): Promise<Response> {
		const userId = Number(request.headers.get("x-user-id"));
		if (!Number.isInteger(userId) || userId <= 0) return new Response("missing identity", { status: 400 });
		// Counted and accepted with no await between, so two upgrades at once cannot both take the last place.
		const max = setting(this.env, "LIVE_FEED_MAX_SOCKETS");
		const open = this.ctx.getWebSockets().filter((s) => s.readyState === WebSocket.OPEN).length;
		if (open >= max) return refusedSocket(tooManySockets(max), 1013, "too many connections");
		const pair = new WebSocketPair();
		this.ctx.acceptWebSocket(pair[1]);
		const tokenId = Number(request.headers.get(KEY_ID_HEADER));
		const keyExpiresAt = Number(request.headers.get(KEY_EXPIRES_HEADER));
		pair[1].serializeAttachment({
			userId,
			socketId: crypto.randomUUID(),
			...(Number.isInteger(tokenId) && tokenId > 0 ? { tokenId } : {}),
			...(Number.isInteger(keyExpiresAt) && keyExpiresAt > 0 ? { keyExpiresAt } : {}),
		} satisfies SocketTag);
		if (keyExpiresAt > 0) await this.keys.arm();
		return new Response(null, { status: 101, webSocket: pair[0] });
	}

	/** Sends a message to this user's sockets subscribed to the meeting; false when there are none. */
	async deliver(meetingId: number, text: string): Promise<boolean> {
		await this.subs.ready();
		const sockets = this.subs.watching(String(meetingId));
		if (sockets.size === 0) return false;
		for (const socket of sockets) {
			try {
				socket.send(text);
			} catch {
				// a socket closing right now; its close handler unsubscribes it
			}
		}
		return true;
	}

	/**
	 * Sends the frames of steps made in bulk (a calendar sync's plans) to the sockets watching
	 * each meeting. A plan just made (a frame with its link, sent to its owner's feed only) is
	 * watched from now on by the sockets waiting on its link, and also reaches the sockets that
	 * subscribed with its link for an older meeting on it.
	 */
	async deliverPlanSteps(frames: PlanFrame[]): Promise<void> {
		const claimed = await this.queue.run(async () => {
			const ids: number[] = [];
			for (const frame of frames) if (frame.link && (await this.#bindWaiting(frame.meetingId, frame.link))) ids.push(frame.meetingId);
			return ids;
		});
		const userId = this.#userId();
		if (userId) for (const meetingId of claimed) await meetingRoom(this.env, meetingId).addSubscriber(userId);
		await this.subs.ready();
		const byLink = frames.some((f) => f.link) ? this.subs.byLink() : new Map<string, Set<WebSocket>>();
		for (const frame of frames) {
			const sockets = new Set(this.subs.watching(String(frame.meetingId)));
			for (const socket of frame.link ? (byLink.get(refKey(frame.link)) ?? []) : []) sockets.add(socket);
			for (const socket of sockets) {
				try {
					socket.send(frame.text);
				} catch {
					// a socket closing right now; its close handler unsubscribes it
				}
			}
		}
	}

	/**
	 * Moves this user's subscriptions from an ended meeting to the new meeting on its link, if
	 * the user may read it; false when no socket of theirs still watches the old one.
	 */
	follow(fromMeetingId: number, toMeetingId: number): Promise<boolean> {
		return this.queue.run(async () => {
			await this.subs.ready();
			const watchers = [...this.subs.watching(String(fromMeetingId))];
			const userId = watchers[0] && tagOf(watchers[0])?.userId;
			if (!userId) return false;
			if (!(await findReadableMeeting(this.env, userId, toMeetingId))) return true;
			for (const socket of watchers) {
				const ref = this.subs.of(socket).get(String(fromMeetingId));
				if (!ref) continue;
				this.subs.remove(socket, String(fromMeetingId));
				this.subs.add(socket, String(toMeetingId), ref);
				await this.subs.save(socket);
			}
			await meetingRoom(this.env, toMeetingId).addSubscriber(userId);
			return false;
		});
	}

	/**
	 * A meeting of this user's was just made on a link (its room calls this before announcing
	 * it): the sockets waiting on that link watch it from now on. True when any do, so the room
	 * counts this user among its watchers. Only the owner's feed is called, and the meeting must
	 * be one this user may read: a later meeting on the link by anyone else reaches nobody here.
	 */
	claimLink(meetingId: number, link: MeetingRefIn): Promise<boolean> {
		return this.queue.run(() => this.#bindWaiting(meetingId, link));
	}

	/** Inside the queue: moves the sockets waiting on `link` onto the meeting, if the user may read it. */
	async #bindWaiting(meetingId: number, link: MeetingRefIn): Promise<boolean> {
		await this.subs.ready();
		const key = refKey(link);
		const sockets = this.subs.waitingOn(key);
		const userId = sockets[0] && tagOf(sockets[0])?.userId;
		if (!userId || !(await findReadableMeeting(this.env, userId, meetingId))) return false;
		for (const socket of sockets) {
			const ref = this.subs.waitingOf(socket).get(key) ?? link;
			this.subs.removeWaiting(socket, key);
			this.subs.add(socket, String(meetingId), ref);
			await this.subs.save(socket);
		}
		return true;
	}

	/** The user whose feed this is, as its sockets say; undefined while none is open. */
	#userId(): number | undefined {
		return this.ctx
			.getWebSockets()
			.map((s) => tagOf(s)?.userId)
			.find(Boolean);
	}

	/** The user opened a meeting stream (SSE): the next revalidation asks its room too. */
	streamOpened(userId: number, meetingId: number): Promise<void> {
		return this.queue.run(() => this.streams.opened(userId, meetingId));
	}

	/**
	 * Drops subscriptions the user may no longer read (a membership removed, a meeting unbound
	 * or rebound, a key revoked), telling each affected socket with an `unsubscribed` frame, and
	 * has the rooms end their meeting streams that lost access. Checks the given meetings, or
	 * every subscribed and streamed one; checking all of them, it also closes the sockets whose
	 * key no longer stands.
	 */
	revalidate(meetingIds?: number[]): Promise<void> {
		return this.queue.run(async () => {
			await this.streams.revalidate(meetingIds);
			if (!meetingIds) await this.#closeEndedKeys();
			await this.subs.ready();
			const ids = (meetingIds?.map(String) ?? this.subs.meetingIds()).filter((id) => this.subs.watching(id).size > 0);
			const userId = this.#userId();
			if (ids.length === 0 || !userId) return;
			const readable = await readableAmong(this.env, userId, ids.map(Number));
			const revoked = ids.filter((id) => !readable.has(Number(id)));
			const lost = new Map<WebSocket, MeetingRefIn[]>();
			for (const id of revoked) {
				for (const socket of [...this.subs.watching(id)]) {
					const ref = this.subs.of(socket).get(id);
					this.subs.remove(socket, id);
					if (ref) lost.set(socket, [...(lost.get(socket) ?? []), ref]);
				}
			}
			for (const [socket, refs] of lost) {
				await this.subs.save(socket);
				send(socket, { type: "unsubscribed", meetings: refs, reason: "access_revoked" });
			}
			for (const id of revoked) await meetingRoom(this.env, Number(id)).removeSubscriber(userId);
		});
	}

	/** Inside the queue: ends the open sockets whose key was revoked or has expired, with a last error frame. */
	async #closeEndedKeys(): Promise<void> {
		const ended = await this.keys.ended();
		if (ended.length > 0) await this.subs.ready();
		for (const { socket, userId } of ended) {
			send(socket, KEY_ENDED_FRAME);
			closeQuietly(socket, 4401, "api key ended");
			// A close from this side brings no webSocketClose: the socket's subscriptions go now.
			await this.#dropUnwatched(await this.subs.forget(socket), userId);
		}
	}

	/** A socket's key reached its expiry (SocketKeys.arm): its sockets end, and the next expiry is armed. */
	override async alarm(): Promise<void> {
		await this.queue.run(() => this.#closeEndedKeys());
		await this.keys.arm();
	}

	/** Takes one token from the connection's bucket; false when it is empty. */
	#admitFrame(socket: WebSocket): boolean {
		const taken = takeToken(this.buckets.get(socket), Date.now(), { perSecond: CONTROL_FRAMES_PER_SECOND, burst: CONTROL_FRAME_BURST });
		this.buckets.set(socket, taken.bucket);
		return taken.admission.allowed;
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		const reply = (message: LiveFrame) => send(socket, message);
		if (!this.#admitFrame(socket)) return reply(tooManyFrames);
		let parsed: unknown;
		try {
			parsed = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
		} catch {
			return reply({ type: "error", error: "invalid_json" });
		}
		const control = Control.safeParse(parsed);
		const action = control.success ? control.data.action : undefined;
		const userId = tagOf(socket)?.userId;
		if (!userId) return;
		if (action === "subscribe") {
			const request = Subscribe.safeParse(parsed);
			if (!request.success)
				return reply({ type: "error", error: "invalid_subscribe_payload", details: request.error.issues.map((i) => i.message) });
			return reply(await this.queue.run(() => this.#subscribe(socket, userId, request.data.meetings)));
		}
		if (action === "unsubscribe") {
			const request = Unsubscribe.safeParse(parsed);
			if (!request.success)
				return reply({ type: "error", error: "invalid_unsubscribe_payload", details: request.error.issues.map((i) => i.message) });
			return reply(await this.queue.run(() => this.#unsubscribe(socket, userId, request.data.meetings)));
		}
		if (action === "ping") return reply({ type: "pong" });
		reply({ type: "error", error: "unknown_action" });
	}

	async #subscribe(socket: WebSocket, userId: number, requested: MeetingRefIn[]): Promise<SubscribedFrame | ErrorFrame> {
		await this.subs.ready();
		const refs = [...new Map(requested.map((r) => [refKey(r), { platform: r.platform, native_id: r.native_id }])).values()];
		const held = this.subs.of(socket);
		const heldByRef = new Map([...held].map(([meetingId, ref]) => [refKey(ref), meetingId]));
		const waiting = this.subs.waitingOf(socket);
		const adding = refs.filter((r) => !heldByRef.has(refKey(r)) && !waiting.has(refKey(r))).length;
		const holding = this.subs.heldBy(socket);
		if (holding + adding > MAX_SUBSCRIPTIONS_PER_SOCKET) return tooManySubscriptions(holding, adding);
		const subscribed: MeetingRefIn[] = [];
		const waits: MeetingRefIn[] = [];
		const denied: MeetingRefIn[] = [];
		const replaced: string[] = [];
		for (const ref of refs) {
			const meeting = await findMeetingOnLink(this.env, userId, ref.platform, ref.native_id);
			const previous = heldByRef.get(refKey(ref));
			if (!meeting) {
				// No meeting of the user's on the link yet (whether or not someone else has one there, which
				// this answer never tells): the socket waits for their first one (bindWaiting).
				if (!(PLATFORMS as readonly string[]).includes(ref.platform)) {
					denied.push(ref);
					continue;
				}
				if (previous) {
					this.subs.remove(socket, previous);
					replaced.push(previous);
				}
				this.subs.addWaiting(socket, ref);
				subscribed.push(ref);
				waits.push(ref);
				continue;
			}
			this.subs.removeWaiting(socket, refKey(ref));
			if (previous !== String(meeting.id)) {
				// The link now leads to another meeting: the socket watches that one instead.
				if (previous) {
					this.subs.remove(socket, previous);
					replaced.push(previous);
				}
				this.subs.add(socket, String(meeting.id), ref);
				await meetingRoom(this.env, meeting.id).addSubscriber(userId);
			}
			subscribed.push(ref);
		}
		await this.subs.save(socket);
		await this.#dropUnwatched(replaced, userId);
		return { type: "subscribed", meetings: subscribed, ...(waits.length ? { waiting: waits } : {}), ...(denied.length ? { denied } : {}) };
	}

	async #unsubscribe(socket: WebSocket, userId: number, refs: MeetingRefIn[]): Promise<UnsubscribedFrame> {
		await this.subs.ready();
		const leaving = new Set(refs.map(refKey));
		const removed: string[] = [];
		for (const [meetingId, ref] of [...this.subs.of(socket)]) {
			if (!leaving.has(refKey(ref))) continue;
			this.subs.remove(socket, meetingId);
			removed.push(meetingId);
		}
		for (const key of leaving) this.subs.removeWaiting(socket, key);
		await this.subs.save(socket);
		await this.#dropUnwatched(removed, userId);
		return { type: "unsubscribed", meetings: refs };
	}

	override async webSocketClose(socket: WebSocket, code?: number, reason?: string): Promise<void> {
		closeQuietly(socket, code ?? 1000, reason ?? "");
		const userId = tagOf(socket)?.userId;
		await this.queue.run(async () => {
			await this.subs.ready();
			const watched = await this.subs.forget(socket);
			if (userId) await this.#dropUnwatched(watched, userId);
		});
	}

	override async webSocketError(socket: WebSocket): Promise<void> {
		await this.webSocketClose(socket);
	}

	/** Tells rooms this user no longer watches them, once no other socket of theirs does. */
	async #dropUnwatched(meetingIds: string[], userId: number): Promise<void> {
		for (const meetingId of meetingIds) {
			if (this.subs.watching(meetingId).size === 0) await meetingRoom(this.env, Number(meetingId)).removeSubscriber(userId);
		}
	}
}
