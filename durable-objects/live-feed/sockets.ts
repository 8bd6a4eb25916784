/**
 * A user's /ws connections themselves: accepting one (within LIVE_FEED_MAX_SOCKETS), its
 * control frames (subscribe, unsubscribe, ping; docs/live-feed.md#client--server) within a
 * token bucket each, and its close.
 */
import { z } from "zod";
import { PLATFORMS } from "../../src/bot-channel/protocol";
import { KEY_EXPIRES_HEADER, KEY_ID_HEADER, refusedSocket } from "../../src/live/feed-messages";
import type { ErrorFrame, LiveFrame, SubscribedFrame, UnsubscribedFrame } from "../../src/live/frames";
import { findMeetingOnLink } from "../../src/meetings/meeting-store";
import { meetingRoom } from "../../src/objects";
import { setting } from "../../src/settings/deployment-defaults";
import { closeQuietly } from "../shared/sockets";
import { type TokenBucket, takeToken } from "../shared/token-bucket";
import type { FeedContext } from "./context";
import { type MeetingRefIn, refKey, type SocketTag, tagOf } from "./subscriptions";
import { type FeedWatchers, sendFrame } from "./watchers";

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

export type SocketsHost = Pick<FeedContext, "env" | "state" | "subs" | "timers" | "queue">;

export class FeedSockets {
	/** Per-connection token buckets for control frames; a wake-up from hibernation starts full. */
	readonly #buckets = new WeakMap<WebSocket, TokenBucket>();

	constructor(
		private readonly feed: SocketsHost,
		private readonly watchers: Pick<FeedWatchers, "dropUnwatched">,
	) {}

	/** Opens a /ws connection (the Worker authenticated it and names the user and their key); 1013 past the user's cap. */
	async accept(request: Request): Promise<Response> {
		const userId = Number(request.headers.get("x-user-id"));
		if (!Number.isInteger(userId) || userId <= 0) return new Response("missing identity", { status: 400 });
		// Counted and accepted with no await between, so two upgrades at once cannot both take the last place.
		const max = setting(this.feed.env, "LIVE_FEED_MAX_SOCKETS");
		const open = this.feed.state.getWebSockets().filter((s) => s.readyState === WebSocket.OPEN).length;
		if (open >= max) return refusedSocket(tooManySockets(max), 1013, "too many connections");
		const pair = new WebSocketPair();
		this.feed.state.acceptWebSocket(pair[1]);
		const tokenId = Number(request.headers.get(KEY_ID_HEADER));
		const keyExpiresAt = Number(request.headers.get(KEY_EXPIRES_HEADER));
		pair[1].serializeAttachment({
			userId,
			socketId: crypto.randomUUID(),
			...(Number.isInteger(tokenId) && tokenId > 0 ? { tokenId } : {}),
			...(Number.isInteger(keyExpiresAt) && keyExpiresAt > 0 ? { keyExpiresAt } : {}),
		} satisfies SocketTag);
		// The `key_expiry` timer is derived from the open sockets' tags: armed again with this one.
		if (keyExpiresAt > 0) await this.feed.timers.arm();
		return new Response(null, { status: 101, webSocket: pair[0] });
	}

	/** Takes one token from the connection's bucket; false when it is empty. */
	#admitFrame(socket: WebSocket): boolean {
		const taken = takeToken(this.#buckets.get(socket), Date.now(), { perSecond: CONTROL_FRAMES_PER_SECOND, burst: CONTROL_FRAME_BURST });
		this.#buckets.set(socket, taken.bucket);
		return taken.admission.allowed;
	}

	/** One control frame from a client. */
	async message(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		const reply = (message: LiveFrame) => sendFrame(socket, message);
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
			return reply(await this.feed.queue.run(() => this.#subscribe(socket, userId, request.data.meetings)));
		}
		if (action === "unsubscribe") {
			const request = Unsubscribe.safeParse(parsed);
			if (!request.success)
				return reply({ type: "error", error: "invalid_unsubscribe_payload", details: request.error.issues.map((i) => i.message) });
			return reply(await this.feed.queue.run(() => this.#unsubscribe(socket, userId, request.data.meetings)));
		}
		if (action === "ping") return reply({ type: "pong" });
		reply({ type: "error", error: "unknown_action" });
	}

	async #subscribe(socket: WebSocket, userId: number, requested: MeetingRefIn[]): Promise<SubscribedFrame | ErrorFrame> {
		const { subs } = this.feed;
		await subs.ready();
		const refs = [...new Map(requested.map((r) => [refKey(r), { platform: r.platform, native_id: r.native_id }])).values()];
		const held = subs.of(socket);
		const heldByRef = new Map([...held].map(([meetingId, ref]) => [refKey(ref), meetingId]));
		const waiting = subs.waitingOf(socket);
		const adding = refs.filter((r) => !heldByRef.has(refKey(r)) && !waiting.has(refKey(r))).length;
		const holding = subs.heldBy(socket);
		if (holding + adding > MAX_SUBSCRIPTIONS_PER_SOCKET) return tooManySubscriptions(holding, adding);
		const subscribed: MeetingRefIn[] = [];
		const waits: MeetingRefIn[] = [];
		const denied: MeetingRefIn[] = [];
		const replaced: string[] = [];
		for (const ref of refs) {
			const meeting = await findMeetingOnLink(this.feed.env, userId, ref.platform, ref.native_id);
			const previous = heldByRef.get(refKey(ref));
			if (!meeting) {
				// No meeting of the user's on the link yet (whether or not someone else has one there, which
				// this answer never tells): the socket waits for their first one (bindWaiting).
				if (!(PLATFORMS as readonly string[]).includes(ref.platform)) {
					denied.push(ref);
					continue;
				}
				if (previous) {
					subs.remove(socket, previous);
					replaced.push(previous);
				}
				subs.addWaiting(socket, ref);
				subscribed.push(ref);
				waits.push(ref);
				continue;
			}
			subs.removeWaiting(socket, refKey(ref));
			if (previous !== String(meeting.id)) {
				// The link now leads to another meeting: the socket watches that one instead.
				if (previous) {
					subs.remove(socket, previous);
					replaced.push(previous);
				}
				subs.add(socket, String(meeting.id), ref);
				await meetingRoom(this.feed.env, meeting.id).addSubscriber(userId);
			}
			subscribed.push(ref);
		}
		await subs.save(socket);
		await this.watchers.dropUnwatched(replaced, userId);
		return { type: "subscribed", meetings: subscribed, ...(waits.length ? { waiting: waits } : {}), ...(denied.length ? { denied } : {}) };
	}

	async #unsubscribe(socket: WebSocket, userId: number, refs: MeetingRefIn[]): Promise<UnsubscribedFrame> {
		const { subs } = this.feed;
		await subs.ready();
		const leaving = new Set(refs.map(refKey));
		const removed: string[] = [];
		for (const [meetingId, ref] of [...subs.of(socket)]) {
			if (!leaving.has(refKey(ref))) continue;
			subs.remove(socket, meetingId);
			removed.push(meetingId);
		}
		for (const key of leaving) subs.removeWaiting(socket, key);
		await subs.save(socket);
		await this.watchers.dropUnwatched(removed, userId);
		return { type: "unsubscribed", meetings: refs };
	}

	/** A connection closed (or failed): its subscriptions go, and rooms it alone watched hear of it. */
	async closed(socket: WebSocket, code?: number, reason?: string): Promise<void> {
		closeQuietly(socket, code ?? 1000, reason ?? "");
		const userId = tagOf(socket)?.userId;
		await this.feed.queue.run(async () => {
			await this.feed.subs.ready();
			const watched = await this.feed.subs.forget(socket);
			if (userId) await this.watchers.dropUnwatched(watched, userId);
		});
	}
}
