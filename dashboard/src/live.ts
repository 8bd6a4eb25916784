/**
 * The dashboard's one `/ws` connection (docs/live-feed.md). It connects with a one-use ticket
 * (never the key), keeps the set of meetings the open pages watch, subscribes them again after
 * every reconnect, and reconnects with a fresh ticket and a growing backoff (1 s to 30 s).
 * Pages call `watch()` and get every frame about the meetings they named.
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
	/** How many pages watch each ref; a ref is subscribed while its count is above 0. */
	private watched = new Map<string, { ref: MeetingRef; count: number }>();
	private listeners = new Set<Listener>();
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
		this.setState("off");
	}

	/** Watches `refs`, calling `listener` with every frame; returns the function that stops it. */
	watch(refs: MeetingRef[], listener: Listener): () => void {
		const added: MeetingRef[] = [];
		for (const ref of refs) {
			const entry = this.watched.get(refKey(ref));
			if (entry) entry.count++;
			else if (this.watched.size < MAX_WATCHED) {
				this.watched.set(refKey(ref), { ref, count: 1 });
				added.push(ref);
			}
		}
		this.listeners.add(listener);
		this.send("subscribe", added);
		return () => {
			this.listeners.delete(listener);
			const removed: MeetingRef[] = [];
			for (const ref of refs) {
				const entry = this.watched.get(refKey(ref));
				if (!entry) continue;
				if (--entry.count <= 0) {
					this.watched.delete(refKey(ref));
					removed.push(ref);
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
			for (const listener of [...this.listeners]) listener(frame);
		};
		socket.onclose = () => {
			if (this.socket !== socket) return;
			this.socket = null;
			clearInterval(this.pingTimer);
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

/** True when a frame is about `ref`. */
export function frameIsAbout(frame: FeedFrame, ref: { platform: string; native_id: string; id?: number }): boolean {
	const m = frame.meeting;
	if (!m) return false;
	if (ref.id !== undefined && m.id === ref.id) return true;
	return m.platform === ref.platform && m.native_id === ref.native_id;
}

/** The feed's state in a component (re-renders on each change). */
export function useFeedState(): FeedState {
	const [state, setState] = useState<FeedState>(liveFeed.state);
	useEffect(() => liveFeed.onState(setState), []);
	return state;
}
