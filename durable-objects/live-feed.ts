import { DurableObject } from "cloudflare:workers";
import { z } from "zod";
import type { Env } from "../src/env";
import { findMeetingOnLink, findReadableMeeting } from "../src/meetings/meeting-store";
import { meetingRoom } from "../src/objects";
import { closeQuietly } from "./meeting-room";

/** Client → server control messages of /ws (contracts/ws.v1). */
const MeetingRefIn = z.object({ platform: z.string().min(1).max(40), native_id: z.string().min(1).max(300) });
const Control = z.object({ action: z.string() }).passthrough();
const Subscribe = z.object({ action: z.literal("subscribe"), meetings: z.array(MeetingRefIn).min(1).max(100) });
const Unsubscribe = z.object({ action: z.literal("unsubscribe"), meetings: z.array(MeetingRefIn).max(100) });

type Ref = z.infer<typeof MeetingRefIn>;

interface SocketState {
	userId: number;
	/** meeting id → the ref the client subscribed with */
	subscriptions: Record<string, Ref>;
}

/**
 * One per user: that user's /ws connections (hibernatable). A MeetingRoom delivers each live
 * message once per subscribed user; this object sends it to each socket subscribed to it.
 */
export class LiveFeed extends DurableObject<Env> {
	/** meeting id → subscribed sockets; rebuilt from the sockets' attachments after hibernation. */
	private index: Map<string, Set<WebSocket>> | undefined;

	private subscribers(): Map<string, Set<WebSocket>> {
		if (!this.index) {
			this.index = new Map();
			for (const socket of this.ctx.getWebSockets()) {
				const state = socket.deserializeAttachment() as SocketState | null;
				for (const meetingId of Object.keys(state?.subscriptions ?? {})) this.indexAdd(meetingId, socket);
			}
		}
		return this.index;
	}

	private indexAdd(meetingId: string, socket: WebSocket): void {
		const index = this.index ?? this.subscribers();
		let set = index.get(meetingId);
		if (!set) {
			set = new Set();
			index.set(meetingId, set);
		}
		set.add(socket);
	}

	override async fetch(request: Request): Promise<Response> {
		const userId = Number(request.headers.get("x-user-id"));
		if (!Number.isInteger(userId) || userId <= 0) return new Response("missing identity", { status: 400 });
		const pair = new WebSocketPair();
		this.ctx.acceptWebSocket(pair[1]);
		pair[1].serializeAttachment({ userId, subscriptions: {} } satisfies SocketState);
		return new Response(null, { status: 101, webSocket: pair[0] });
	}

	/** Sends a message to this user's sockets subscribed to the meeting; false when there are none. */
	deliver(meetingId: number, text: string): boolean {
		const sockets = this.subscribers().get(String(meetingId));
		if (!sockets || sockets.size === 0) return false;
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
	 * Moves this user's subscriptions from an ended meeting to the new meeting on its link, if
	 * the user may read it; false when no socket of theirs still watches the old one.
	 */
	async follow(fromMeetingId: number, toMeetingId: number): Promise<boolean> {
		const watchers = this.subscribers().get(String(fromMeetingId));
		if (!watchers?.size) return false;
		const first = [...watchers][0]?.deserializeAttachment() as SocketState | undefined;
		if (!first || !(await findReadableMeeting(this.env, first.userId, toMeetingId))) return true;
		for (const socket of watchers) {
			const state = socket.deserializeAttachment() as SocketState;
			const ref = state.subscriptions[fromMeetingId];
			if (!ref) continue;
			delete state.subscriptions[fromMeetingId];
			state.subscriptions[toMeetingId] = ref;
			socket.serializeAttachment(state);
			this.indexAdd(String(toMeetingId), socket);
		}
		this.subscribers().delete(String(fromMeetingId));
		await meetingRoom(this.env, toMeetingId).addSubscriber(first.userId);
		return false;
	}

	override async webSocketMessage(socket: WebSocket, data: string | ArrayBuffer): Promise<void> {
		const reply = (message: unknown) => socket.send(JSON.stringify(message));
		let parsed: unknown;
		try {
			parsed = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
		} catch {
			return reply({ type: "error", error: "invalid_json" });
		}
		const control = Control.safeParse(parsed);
		const action = control.success ? control.data.action : undefined;
		const state = socket.deserializeAttachment() as SocketState;
		if (action === "subscribe") {
			const request = Subscribe.safeParse(parsed);
			if (!request.success)
				return reply({ type: "error", error: "invalid_subscribe_payload", details: request.error.issues.map((i) => i.message) });
			return reply(await this.subscribe(socket, state, request.data.meetings));
		}
		if (action === "unsubscribe") {
			const request = Unsubscribe.safeParse(parsed);
			if (!request.success)
				return reply({ type: "error", error: "invalid_unsubscribe_payload", details: request.error.issues.map((i) => i.message) });
			return reply(await this.unsubscribe(socket, state, request.data.meetings));
		}
		if (action === "ping") return reply({ type: "pong" });
		reply({ type: "error", error: "unknown_action" });
	}

	private async subscribe(socket: WebSocket, state: SocketState, refs: Ref[]) {
		const subscribed: Ref[] = [];
		const denied: Ref[] = [];
		for (const ref of refs) {
			const meeting = await findMeetingOnLink(this.env, state.userId, ref.platform, ref.native_id);
			if (!meeting) {
				denied.push(ref);
				continue;
			}
			state.subscriptions[meeting.id] = ref;
			this.indexAdd(String(meeting.id), socket);
			await meetingRoom(this.env, meeting.id).addSubscriber(state.userId);
			subscribed.push(ref);
		}
		socket.serializeAttachment(state);
		return { type: "subscribed", meetings: subscribed, ...(denied.length ? { denied } : {}) };
	}

	private async unsubscribe(socket: WebSocket, state: SocketState, refs: Ref[]) {
		const removed: string[] = [];
		for (const [meetingId, ref] of Object.entries(state.subscriptions)) {
			if (refs.some((r) => r.platform === ref.platform && r.native_id === ref.native_id)) {
				delete state.subscriptions[meetingId];
				this.subscribers().get(meetingId)?.delete(socket);
				removed.push(meetingId);
			}
		}
		socket.serializeAttachment(state);
		await this.dropUnwatched(removed, socket);
		return { type: "unsubscribed", meetings: refs };
	}

	override async webSocketClose(socket: WebSocket, code?: number, reason?: string): Promise<void> {
		closeQuietly(socket, code ?? 1000, reason ?? "");
		const state = socket.deserializeAttachment() as SocketState | null;
		if (state) await this.dropUnwatched(Object.keys(state.subscriptions), socket);
	}

	override async webSocketError(socket: WebSocket): Promise<void> {
		await this.webSocketClose(socket);
	}

	/** Tells rooms this user no longer watches them, once no other socket of theirs does. */
	private async dropUnwatched(meetingIds: string[], leaving: WebSocket): Promise<void> {
		const userId = (leaving.deserializeAttachment() as SocketState | null)?.userId;
		for (const meetingId of meetingIds) {
			const watchers = this.subscribers().get(meetingId);
			watchers?.delete(leaving);
			if (!watchers?.size && userId) await meetingRoom(this.env, Number(meetingId)).removeSubscriber(userId);
		}
	}
}
