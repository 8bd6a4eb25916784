/**
 * The dashboard's one `/ws` connection (docs/live-feed.md), on the typed client's live feed
 * (`createLiveFeed` of @meetbot/client): it connects with a one-use ticket (never the key),
 * subscribes the meetings the open pages watch again after every reconnect, and reconnects with
 * a fresh ticket and a growing backoff (1 s to 30 s).
 *
 * Pages call `watch()` and get every frame about the meetings they named. Frames sent before
 * a subscription takes effect reach nobody, so `watch()` also takes `onReady`: it is called
 * once the server has confirmed the subscription (at once if it already had), and again after
 * every reconnect. A page re-reads what it shows there, so nothing falls between its GET and
 * the feed.
 */
import {
	createLiveFeed,
	LiveError,
	type LiveMeetingLink,
	type LiveSubscription,
	MeetbotApiError,
	type MeetingFrame,
	type SubscribedFrame,
} from "@meetbot/client";
import { useEffect, useState } from "preact/hooks";
import { api, refusalText } from "./api";

export type MeetingRef = LiveMeetingLink;

/** A frame about a watched meeting; the pages narrow it by `type`. */
export type FeedFrame = MeetingFrame;

export type FeedState = "connecting" | "live" | "retrying" | "off";

type Listener = (frame: FeedFrame) => void;

interface Watcher {
	keys: string[];
	onFrame: Listener;
	onReady?: () => void;
	/** Whether onReady has run for the current connection. */
	told: boolean;
}

const MAX_WATCHED = 200;
const PING_EVERY_MS = 25_000;

const refKey = (ref: MeetingRef) => `${ref.platform}\n${ref.native_id}`;

/** A one-use ticket (docs/dashboard.md#signing-in); a refused key ends the session's feed, anything else is worth another try. */
async function ticket(): Promise<{ ticket: string }> {
	try {
		return await api.auth.ticket();
	} catch (err) {
		if (err instanceof MeetbotApiError && (err.status === 401 || err.status === 403))
			throw new LiveError(refusalText(err), undefined, true);
		throw err;
	}
}

class LiveFeed {
	private subscription: LiveSubscription | null = null;
	/** How many watchers name each ref (subscribed while above 0), and whether the server confirmed it on this connection. */
	private watched = new Map<string, { ref: MeetingRef; count: number; confirmed: boolean }>();
	private watchers = new Set<Watcher>();
	private stateListeners = new Set<(state: FeedState) => void>();
	state: FeedState = "off";

	start() {
		if (this.subscription) return;
		this.setState("connecting");
		const feed = createLiveFeed({ baseUrl: location.origin, ticket, backoffMs: 1000, maxBackoffMs: 30_000, pingMs: PING_EVERY_MS });
		this.subscription = feed.subscribe(
			[...this.watched.values()].map((e) => e.ref),
			{
				onConnect: () => {
					this.setState("live");
					// The feed stops resubscribing a meeting whose access was revoked; a page still showing it subscribes it again, as before.
					const held = new Set(this.subscription?.meetings.map(refKey));
					const dropped = [...this.watched.values()].filter((e) => !held.has(refKey(e.ref))).map((e) => e.ref);
					if (dropped.length > 0) this.subscription?.add(dropped);
				},
				onSubscribed: (frame) => this.confirm(frame),
				onFrame: (frame) => {
					for (const watcher of [...this.watchers]) watcher.onFrame(frame);
				},
				onDisconnect: ({ willReconnect }) => {
					// Frames sent while the socket is down are not replayed: every watcher re-reads once the new one is confirmed.
					for (const entry of this.watched.values()) entry.confirmed = false;
					for (const watcher of this.watchers) watcher.told = false;
					if (willReconnect) this.setState("retrying");
				},
				onError: (error) => {
					if (error.fatal) this.setState("off");
					else if (this.state !== "live") this.setState("retrying");
				},
			},
		);
	}

	/** Closes the socket and forgets every subscription (sign out). */
	stop() {
		this.subscription?.close();
		this.subscription = null;
		this.watched.clear();
		this.watchers.clear();
		this.setState("off");
	}

	/**
	 * Watches `refs`: `onFrame` gets every frame, `onReady` runs when the subscription is in
	 * effect (see above). Returns the function that stops watching.
	 */
	watch(refs: MeetingRef[], onFrame: Listener, onReady?: () => void): () => void {
		const added: MeetingRef[] = [];
		const keys: string[] = [];
		for (const ref of refs) {
			const key = refKey(ref);
			const entry = this.watched.get(key);
			if (entry) entry.count++;
			else if (this.watched.size < MAX_WATCHED) {
				this.watched.set(key, { ref, count: 1, confirmed: false });
				added.push(ref);
			} else continue;
			keys.push(key);
		}
		const watcher: Watcher = { keys, onFrame, onReady, told: false };
		this.watchers.add(watcher);
		if (added.length > 0) this.subscription?.add(added);
		// Already confirmed (another page subscribed first): ready now, after the caller returns.
		queueMicrotask(() => this.tellReady());
		return () => {
			this.watchers.delete(watcher);
			const removed: MeetingRef[] = [];
			for (const key of keys) {
				const entry = this.watched.get(key);
				if (!entry) continue;
				if (--entry.count <= 0) {
					this.watched.delete(key);
					removed.push(entry.ref);
				}
			}
			if (removed.length > 0) this.subscription?.remove(removed);
		};
	}

	onState(listener: (state: FeedState) => void): () => void {
		this.stateListeners.add(listener);
		listener(this.state);
		return () => this.stateListeners.delete(listener);
	}

	private setState(state: FeedState) {
		this.state = state;
		for (const listener of this.stateListeners) listener(state);
	}

	/** Runs onReady of each watcher whose refs are all confirmed and that was not told yet. */
	private tellReady() {
		if (this.state !== "live") return;
		for (const watcher of [...this.watchers]) {
			if (watcher.told || !watcher.onReady) continue;
			if (!watcher.keys.every((key) => this.watched.get(key)?.confirmed)) continue;
			watcher.told = true;
			watcher.onReady();
		}
	}

	/** `subscribed` confirms refs (a link with no meeting yet waits for one); a denied ref will never have one, so there is nothing to wait for either. */
	private confirm(frame: SubscribedFrame) {
		for (const ref of [...frame.meetings, ...(frame.denied ?? [])]) {
			const entry = this.watched.get(refKey(ref));
			if (entry) entry.confirmed = true;
		}
		this.tellReady();
	}
}

export const liveFeed = new LiveFeed();

/** The feed's state in a component (re-renders on each change). */
export function useFeedState(): FeedState {
	const [state, setState] = useState<FeedState>(liveFeed.state);
	useEffect(() => liveFeed.onState(setState), []);
	return state;
}
