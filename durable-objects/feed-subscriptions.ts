/**
 * The /ws subscriptions of one user's sockets, kept in Durable Object storage (one key per
 * socket) rather than in the hibernation attachment, whose size workerd caps: the attachment
 * holds only who the socket belongs to and its key. An in-memory index (meeting id → sockets)
 * is rebuilt from storage after hibernation.
 */

export interface MeetingRefIn {
	platform: string;
	native_id: string;
}

/** What the hibernation attachment holds: small and fixed in size. */
export interface SocketTag {
	userId: number;
	socketId: string;
}

const KEY_PREFIX = "subs:";
const keyOf = (socketId: string) => `${KEY_PREFIX}${socketId}`;

export const refKey = (ref: MeetingRefIn) => `${ref.platform}\u0000${ref.native_id}`;

export function tagOf(socket: WebSocket): SocketTag | null {
	return socket.deserializeAttachment() as SocketTag | null;
}

export class FeedSubscriptions {
	/** socket → (meeting id → the ref the client subscribed with) */
	private bySocket = new Map<WebSocket, Map<string, MeetingRefIn>>();
	/** meeting id → subscribed sockets */
	private byMeeting = new Map<string, Set<WebSocket>>();
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
			const stored = (await this.storage.get<Record<string, MeetingRefIn>>(keyOf(tag.socketId))) ?? {};
			for (const [meetingId, ref] of Object.entries(stored)) this.add(socket, meetingId, ref);
		}
		const orphans = [...(await this.storage.list({ prefix: KEY_PREFIX })).keys()].filter((k) => !open.has(k));
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

	/** Writes the socket's subscriptions through to storage. */
	async save(socket: WebSocket): Promise<void> {
		const tag = tagOf(socket);
		if (tag) await this.storage.put(keyOf(tag.socketId), Object.fromEntries(this.of(socket)));
	}

	/** Forgets a closed socket; returns the meeting ids it watched. */
	async forget(socket: WebSocket): Promise<string[]> {
		const meetingIds = [...this.of(socket).keys()];
		for (const meetingId of meetingIds) this.remove(socket, meetingId);
		this.bySocket.delete(socket);
		const tag = tagOf(socket);
		if (tag) await this.storage.delete(keyOf(tag.socketId));
		return meetingIds;
	}
}
