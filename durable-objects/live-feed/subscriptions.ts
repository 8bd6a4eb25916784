/**
 * The /ws subscriptions of one user's sockets, kept in Durable Object storage (one key per
 * socket) rather than in the hibernation attachment, whose size workerd caps: the attachment
 * holds only who the socket belongs to and its key. An in-memory index (meeting id → sockets)
 * is rebuilt from storage after hibernation.
 */
import { LIVE_FEED_STORAGE } from "./storage";

export interface MeetingRefIn {
	platform: string;
	native_id: string;
}

/** What the hibernation attachment holds: small and fixed in size. */
export interface SocketTag {
	userId: number;
	socketId: string;
	/** The key the socket was opened with; absent on sockets opened before keys were recorded. */
	tokenId?: number;
	/** When that key expires (ms since the epoch); absent for a key that never does. */
	keyExpiresAt?: number;
}

const KEY_PREFIX = LIVE_FEED_STORAGE.keys.subscriptionsPrefix;
const keyOf = (socketId: string) => `${KEY_PREFIX}${socketId}`;
/** A socket's links that no meeting of the user's was on yet when it subscribed (docs/live-feed.md#client--server). */
const WAITING_PREFIX = LIVE_FEED_STORAGE.keys.waitingPrefix;
const waitingKeyOf = (socketId: string) => `${WAITING_PREFIX}${socketId}`;

export const refKey = (ref: MeetingRefIn) => `${ref.platform}\u0000${ref.native_id}`;

export function tagOf(socket: WebSocket): SocketTag | null {
	return socket.deserializeAttachment() as SocketTag | null;
}

export class FeedSubscriptions {
	/** socket → (meeting id → the ref the client subscribed with) */
	private bySocket = new Map<WebSocket, Map<string, MeetingRefIn>>();
	/** meeting id → subscribed sockets */
	private byMeeting = new Map<string, Set<WebSocket>>();
	/** socket → (ref key → ref) of links it waits on: the user's first meeting there is what it watches. */
	private waitingBySocket = new Map<WebSocket, Map<string, MeetingRefIn>>();
	private loading: Promise<void> | undefined;

	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly sockets: () => WebSocket[],
	) {}

	/** Loads every open socket's subscriptions once per wake-up, and drops keys of sockets gone. */
	ready(): Promise<void> {
		this.loading ??= this.load();
		return this.loading;
	}

	private async load(): Promise<void> {
		const open = new Set<string>();
		for (const socket of this.sockets()) {
			const tag = tagOf(socket);
			if (!tag) continue;
			open.add(keyOf(tag.socketId));
			open.add(waitingKeyOf(tag.socketId));
			const stored = (await this.storage.get<Record<string, MeetingRefIn>>(keyOf(tag.socketId))) ?? {};
			for (const [meetingId, ref] of Object.entries(stored)) this.add(socket, meetingId, ref);
			const waiting = (await this.storage.get<MeetingRefIn[]>(waitingKeyOf(tag.socketId))) ?? [];
			for (const ref of waiting) this.addWaiting(socket, ref);
		}
		const stored = [
			...(await this.storage.list({ prefix: KEY_PREFIX })).keys(),
			...(await this.storage.list({ prefix: WAITING_PREFIX })).keys(),
		];
		const orphans = stored.filter((k) => !open.has(k));
		if (orphans.length) await this.storage.delete(orphans);
	}

	private indexAdd(meetingId: string, socket: WebSocket): void {
		let set = this.byMeeting.get(meetingId);
		if (!set) {
			set = new Set();
			this.byMeeting.set(meetingId, set);
		}
		set.add(socket);
	}

	/** The socket's subscriptions (meeting id → ref); empty for a new socket. */
	of(socket: WebSocket): Map<string, MeetingRefIn> {
		let held = this.bySocket.get(socket);
		if (!held) {
			held = new Map();
			this.bySocket.set(socket, held);
		}
		return held;
	}

	/** The links the socket waits on (ref key → ref); empty for a new socket. */
	waitingOf(socket: WebSocket): Map<string, MeetingRefIn> {
		let waiting = this.waitingBySocket.get(socket);
		if (!waiting) {
			waiting = new Map();
			this.waitingBySocket.set(socket, waiting);
		}
		return waiting;
	}

	/** Sockets waiting on a link (by ref key). */
	waitingOn(key: string): WebSocket[] {
		return [...this.waitingBySocket].filter(([, waiting]) => waiting.has(key)).map(([socket]) => socket);
	}

	addWaiting(socket: WebSocket, ref: MeetingRefIn): void {
		this.waitingOf(socket).set(refKey(ref), ref);
	}

	removeWaiting(socket: WebSocket, key: string): void {
		this.waitingBySocket.get(socket)?.delete(key);
	}

	/** What the socket watches and waits on together: the per-connection cap counts both. */
	heldBy(socket: WebSocket): number {
		return this.of(socket).size + this.waitingOf(socket).size;
	}

	/** Sockets subscribed to a meeting. */
	watching(meetingId: string): Set<WebSocket> {
		return this.byMeeting.get(meetingId) ?? new Set();
	}

	/** Sockets that subscribed with each link (platform, native id), whichever meeting it led to. */
	byLink(): Map<string, Set<WebSocket>> {
		const index = new Map<string, Set<WebSocket>>();
		for (const [socket, held] of this.bySocket) {
			for (const ref of held.values()) {
				const key = refKey(ref);
				index.set(key, (index.get(key) ?? new Set()).add(socket));
			}
		}
		return index;
	}

	/** Every meeting id some socket is subscribed to. */
	meetingIds(): string[] {
		return [...this.byMeeting.entries()].filter(([, set]) => set.size > 0).map(([id]) => id);
	}

	add(socket: WebSocket, meetingId: string, ref: MeetingRefIn): void {
		this.of(socket).set(meetingId, ref);
		this.indexAdd(meetingId, socket);
	}

	remove(socket: WebSocket, meetingId: string): void {
		this.bySocket.get(socket)?.delete(meetingId);
		const set = this.byMeeting.get(meetingId);
		set?.delete(socket);
		if (set?.size === 0) this.byMeeting.delete(meetingId);
	}

	/** Writes the socket's subscriptions and waiting links through to storage. */
	async save(socket: WebSocket): Promise<void> {
		const tag = tagOf(socket);
		if (!tag) return;
		const waiting = [...this.waitingOf(socket).values()];
		await this.storage.put(keyOf(tag.socketId), Object.fromEntries(this.of(socket)));
		if (waiting.length) await this.storage.put(waitingKeyOf(tag.socketId), waiting);
		else await this.storage.delete(waitingKeyOf(tag.socketId));
	}

	/** Forgets a closed socket; returns the meeting ids it watched. */
	async forget(socket: WebSocket): Promise<string[]> {
		const meetingIds = [...this.of(socket).keys()];
		for (const meetingId of meetingIds) this.remove(socket, meetingId);
		this.bySocket.delete(socket);
		this.waitingBySocket.delete(socket);
		const tag = tagOf(socket);
		if (tag) await this.storage.delete([keyOf(tag.socketId), waitingKeyOf(tag.socketId)]);
		return meetingIds;
	}
}
