import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import type { MeetingFrame } from "../../src/live/frames";
import { type LiveFeedStub, liveFeed } from "../../src/objects";
import { ROOM_KEYS } from "./storage";

/**
 * Who watches a meeting live: the users whose LiveFeed holds at least one /ws connection
 * subscribed to it. A message goes once to each user's feed, which sends it to that user's
 * subscribed sockets. Stubs are kept so messages to one feed stay in order.
 */
export class RoomFanout {
	private users: Set<number> | undefined;
	private readonly stubs = new Map<number, LiveFeedStub>();

	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly env: Env,
	) {}

	private async load(): Promise<Set<number>> {
		this.users ??= new Set((await this.storage.get<number[]>(ROOM_KEYS.subscribers)) ?? []);
		return this.users;
	}

	async watchers(): Promise<number[]> {
		return [...(await this.load())];
	}

	async add(userId: number): Promise<void> {
		const users = await this.load();
		if (users.has(userId)) return;
		users.add(userId);
		await this.storage.put(ROOM_KEYS.subscribers, [...users]);
	}

	async remove(userId: number): Promise<void> {
		const users = await this.load();
		if (!users.delete(userId)) return;
		await this.storage.put(ROOM_KEYS.subscribers, [...users]);
	}

	/**
	 * Sends one serialized message to every subscribed user's feed; a dead feed is dropped. Once
	 * the watchers are loaded the calls go out before this returns (calls on one stub arrive in
	 * the order made), so a caller that does not await still keeps the meeting's frames in order.
	 */
	publish(meetingId: number, message: MeetingFrame): Promise<void> {
		if (!this.users) return this.load().then(() => this.publish(meetingId, message));
		if (this.users.size === 0) return Promise.resolve();
		const text = JSON.stringify(message);
		return Promise.all([...this.users].map((userId) => this.deliver(userId, meetingId, text))).then(() => undefined);
	}

	/**
	 * A meeting just made on a link: its owner's /ws sockets that subscribed to the link before
	 * any meeting of theirs was on it watch this one from now on, and the owner becomes a watcher.
	 * Only the owner's feed is asked, so nobody else's subscriptions can reach this meeting.
	 */
	async adoptWaiting(meetingId: number, ownerId: number, link: { platform: string; native_id: string }): Promise<void> {
		try {
			if (await this.stub(ownerId).claimLink(meetingId, link)) await this.add(ownerId);
		} catch (err) {
			// The meeting stands either way; a socket that missed it can subscribe again.
			console.warn("waiting /ws subscriptions not told of a new meeting", errorName(err));
		}
	}

	/** A new meeting on the same link: every watcher of `from` follows it to `to`; one whose feed no longer watches is dropped. */
	async handOver(from: number, to: number): Promise<void> {
		for (const userId of await this.watchers()) {
			if (!(await this.stub(userId).follow(from, to))) await this.remove(userId);
		}
	}

	/** Each watcher's feed checks again that its user may still read the meeting. */
	async revalidate(meetingId: number): Promise<void> {
		for (const userId of await this.watchers()) await this.stub(userId).revalidate([meetingId]);
	}

	/** The room's storage was erased: the watchers are read from it again. */
	forget(): void {
		this.users = undefined;
	}

	/** Whether publish sends at once (the watchers are in memory). */
	loaded(): boolean {
		return this.users !== undefined;
	}

	private async deliver(userId: number, meetingId: number, text: string): Promise<void> {
		try {
			const stillSubscribed = await this.stub(userId).deliver(meetingId, text);
			if (!stillSubscribed) await this.remove(userId);
		} catch (err) {
			console.warn("live feed delivery failed", errorName(err));
		}
	}

	private stub(userId: number) {
		let stub = this.stubs.get(userId);
		if (!stub) {
			stub = liveFeed(this.env, userId);
			this.stubs.set(userId, stub);
		}
		return stub;
	}
}
