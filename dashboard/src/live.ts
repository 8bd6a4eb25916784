/**
 * The dashboard's one `/ws` connection (docs/live-feed.md). It connects with a one-use ticket
 * (never the key), keeps the set of meetings the open pages watch, subscribes them again after
 * every reconnect, and reconnects with a fresh ticket and a growing backoff (1 s to 30 s).
 *
 * Pages call `watch()` and get every frame about the meetings they named. Frames sent before
 * a subscription takes effect reach nobody, so `watch()` also takes `onReady`: it is called
 * once the server has confirmed the subscription (at once if it already had), and again after
 * every reconnect. A page re-reads what it shows there, so nothing falls between its GET and
 * the feed.
 */
import { useEffect, useState } from "preact/hooks";
import { ApiError, wsTicket, wsUrl } from "./api";
import type { FeedMeetingRef } from "./types";

export interface MeetingRef {
	platform: string;
	native_id: string;
}

/** A server frame; the pages narrow it by `type`. */
export interface FeedFrame {
	type: string;
	meeting?: FeedMeetingRef;
	[key: string]: unknown;
}

export type FeedState = "connecting" | "live" | "retrying" | "off";

type Listener = (frame: FeedFrame) => void;

interface Watcher {
	keys: string[];
	onFrame: Listener;
	onReady?: () => void;
	/** Whether onReady has run for the current connection. */
	told: boolean;
}

const REFS_PER_FRAME = 100;
const MAX_WATCHED = 200;
const PING_EVERY_MS = 25_000;

const refKey = (ref: MeetingRef) => `${ref.platform}\n${ref.native_id}`;

class LiveFeed {
	private socket: WebSocket | null = null;
	private running = false;
	private attempt = 0;
	private retryTimer: ReturnType<typeof setTimeout> | undefined;
	private pingTimer: ReturnType<typeof setInterval> | undefined;
	/** How many watchers name each ref (subscribed while above 0), and whether the server confirmed it on this connection. */
	private watched = new Map<string, { ref: MeetingRef; count: number; confirmed: boolean }>();
	private watchers = new Set<Watcher>();
	private stateListeners = new Set<(state: FeedState) => void>();
	state: FeedState = "off";

	start() {
		if (this.running) return;
		this.running = true;
		void this.connect();
	}

	/** Closes the socket and forgets every subscription (sign out). */
	stop() {
		this.running = false;
		clearTimeout(this.retryTimer);
		clearInterval(this.pingTimer);
		this.socket?.close(1000, "signed out");
		this.socket = null;
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
		this.send("subscribe", added);
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
			this.send("unsubscribe", removed);
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

	private send(action: "subscribe" | "unsubscribe", refs: MeetingRef[]) {
		if (refs.length === 0 || this.socket?.readyState !== WebSocket.OPEN) return;
		for (let i = 0; i < refs.length; i += REFS_PER_FRAME) {
			this.socket.send(JSON.stringify({ action, meetings: refs.slice(i, i + REFS_PER_FRAME) }));
		}
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
	private confirm(frame: FeedFrame) {
		const refs = [
			...(Array.isArray(frame.meetings) ? frame.meetings : []),
			...(Array.isArray(frame.denied) ? frame.denied : []),
		] as MeetingRef[];
		for (const ref of refs) {
			const entry = this.watched.get(refKey(ref));
			if (entry) entry.confirmed = true;
		}
		this.tellReady();
	}

	private async connect() {
		this.setState(this.attempt === 0 ? "connecting" : "retrying");
		let ticket: string;
		try {
			ticket = await wsTicket();
		} catch (err) {
			// A refused key ends the session's feed; anything else is worth another try.
			if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return this.setState("off");
			return this.retry();
		}
		if (!this.running) return;
		const socket = new WebSocket(wsUrl(ticket));
		this.socket = socket;
		socket.onopen = () => {
			this.attempt = 0;
			this.setState("live");
			this.send(
				"subscribe",
				[...this.watched.values()].map((e) => e.ref),
			);
			clearInterval(this.pingTimer);
			this.pingTimer = setInterval(() => socket.readyState === WebSocket.OPEN && socket.send('{"action":"ping"}'), PING_EVERY_MS);
		};
		socket.onmessage = (event) => {
			let frame: FeedFrame;
			try {
				frame = JSON.parse(String(event.data)) as FeedFrame;
			} catch {
				return;
			}
			if (typeof frame?.type !== "string") return;
			if (frame.type === "subscribed") this.confirm(frame);
			for (const watcher of [...this.watchers]) watcher.onFrame(frame);
		};
		socket.onclose = () => {
			if (this.socket !== socket) return;
			this.socket = null;
			clearInterval(this.pingTimer);
			// Frames sent while the socket is down are not replayed: every watcher re-reads once the new one is confirmed.
			for (const entry of this.watched.values()) entry.confirmed = false;
			for (const watcher of this.watchers) watcher.told = false;
			this.retry();
		};
	}

	private retry() {
		if (!this.running) return;
		this.setState("retrying");
		const delay = Math.min(30_000, 1000 * 2 ** this.attempt) * (0.75 + Math.random() * 0.5);
		this.attempt = Math.min(this.attempt + 1, 6);
		clearTimeout(this.retryTimer);
		this.retryTimer = setTimeout(() => void this.connect(), delay);
	}
}

export const liveFeed = new LiveFeed();

/** The feed's state in a component (re-renders on each change). */
export function useFeedState(): FeedState {
	const [state, setState] = useState<FeedState>(liveFeed.state);
	useEffect(() => liveFeed.onState(setState), []);
	return state;
}
