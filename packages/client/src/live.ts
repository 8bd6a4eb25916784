/**
 * `client.live.subscribe(meetings, handlers)`: the `/ws` feed with reconnect. Each connection
 * authenticates afresh and, once open, subscribes to the same meetings again, so a dropped
 * socket (a deploy, a network change, the feed object moving) costs the frames sent while it
 * was down and nothing else.
 *
 * Two ways in, chosen by the runtime (docs/client.md#the-live-feed):
 * - `header`: a fetch with `Upgrade: websocket` and `X-API-Key`, answered with
 *   `response.webSocket` (Workers; the key stays in a header).
 * - `ticket`: `POST /auth/ticket` for a one-use ticket, then a WebSocket on `/ws?ticket=`
 *   (browsers and Node, which cannot set headers on a WebSocket): the global one where the
 *   runtime has it (browsers, Node 22), else the optional `ws` package (Node 20). The key is
 *   never put in the URL.
 */
import { MeetbotApiError } from "./errors.js";
import type { Transport } from "./http.js";
import type { LiveAction, LiveFrame, LiveMeetingLink, MeetingFrame, SubscribedFrame } from "./live-frames.js";

/** The part of a WebSocket the feed uses: both the DOM's and the Workers' have it. */
export interface LiveSocket {
	send(data: string): void;
	close(code?: number, reason?: string): void;
	addEventListener(
		type: "open" | "close" | "error" | "message",
		listener: (event: { data?: unknown; code?: number; reason?: string }) => void,
	): void;
}

export type WebSocketFactory = (url: string) => LiveSocket;

export interface LiveOptions {
	/** `auto` (default): `header` where the runtime has `WebSocketPair` (Workers), else `ticket`. */
	connect?: "auto" | "header" | "ticket";
	/** The WebSocket to use for `ticket` (defaults to the global one, else the `ws` package). */
	webSocket?: WebSocketFactory;
	/** First reconnect delay; doubles up to `maxBackoffMs`, with jitter. */
	backoffMs?: number;
	maxBackoffMs?: number;
	/** Sends `{"action":"ping"}` this often while a connection is open (off by default), for networks that drop quiet sockets. */
	pingMs?: number;
}

export interface LiveHandlers {
	/** A connection opened: called before the feed subscribes its meetings on it, once per connection. */
	onConnect?(info: { connection: number }): void;
	/** Every frame about a meeting (status, transcript, chat, interactive events). */
	onFrame?(frame: MeetingFrame): void;
	/** Each `subscribed` answer: once per connection, after (re)subscribing. */
	onSubscribed?(frame: SubscribedFrame, info: { connection: number }): void;
	/** A subscription the server ended (`access_revoked`). */
	onUnsubscribed?(meetings: LiveMeetingLink[], reason: string | undefined): void;
	/** An in-band error frame, or a failed connection attempt (the feed retries unless it is `fatal`). */
	onError?(error: LiveError): void;
	/** The socket closed; `willReconnect` says whether another connection follows. */
	onDisconnect?(info: { code: number | undefined; reason: string | undefined; willReconnect: boolean }): void;
}

export class LiveError extends Error {
	constructor(
		message: string,
		/** The error frame when the server sent one. */
		readonly frame: Extract<LiveFrame, { type: "error" }> | undefined,
		/** True when retrying cannot help (a bad key or scope): the feed has stopped. */
		readonly fatal: boolean,
	) {
		super(message);
		this.name = "LiveError";
	}
}

export interface LiveSubscription {
	/** The meetings watched; kept across reconnects. */
	readonly meetings: readonly LiveMeetingLink[];
	/** How many connections have opened so far (1 until the first reconnect). */
	readonly connections: number;
	/** Resolves with the first `subscribed` answer. */
	readonly ready: Promise<SubscribedFrame>;
	add(meetings: LiveMeetingLink[]): void;
	remove(meetings: LiveMeetingLink[]): void;
	/** Ends the feed: no reconnect follows. */
	close(): void;
}

/** In-band errors that announce the close of a refused connection. */
const REFUSALS = new Set(["missing_api_key", "authorization_service_error", "invalid_ticket", "authorization_call_failed"]);

const LINKS_PER_FRAME = 100;

const keyOf = (m: LiveMeetingLink) => `${m.platform}\u0000${m.native_id}`;

export function createLive(transport: Transport, ticket: () => Promise<{ ticket: string }>, options: LiveOptions = {}) {
	const backoffMs = options.backoffMs ?? 250;
	const maxBackoffMs = options.maxBackoffMs ?? 10_000;
	const mode = options.connect && options.connect !== "auto" ? options.connect : "WebSocketPair" in globalThis ? "header" : "ticket";
	const wsUrl = (path: string) => {
		const url = new URL(path.replace(/^\//, ""), transport.baseUrl.endsWith("/") ? transport.baseUrl : `${transport.baseUrl}/`);
		return url;
	};

	// Looked up once, on the first ticket connection: a runtime without a WebSocket never gains one.
	let webSocket: Promise<WebSocketFactory> | undefined;

	async function open(): Promise<LiveSocket> {
		if (mode === "header") {
			const response = await transport.fetch(wsUrl("/ws").toString(), { headers: { ...transport.auth, Upgrade: "websocket" } });
			const socket = (response as Response & { webSocket?: (LiveSocket & { accept(): void }) | null }).webSocket;
			if (!socket) throw new LiveError(`/ws answered ${response.status} without a WebSocket`, undefined, response.status === 401);
			socket.accept();
			return socket;
		}
		// Before the ticket: a runtime that cannot open the socket must not spend one.
		webSocket ??= options.webSocket ? Promise.resolve(options.webSocket) : defaultWebSocket();
		const make = await webSocket;
		const { ticket: value } = await ticket();
		const url = wsUrl("/ws");
		url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
		url.searchParams.set("ticket", value);
		const socket = make(url.toString());
		await new Promise<void>((resolve, reject) => {
			socket.addEventListener("open", () => resolve());
			socket.addEventListener("error", () => reject(new LiveError("the /ws connection failed", undefined, false)));
		});
		return socket;
	}

	function subscribe(meetings: LiveMeetingLink[], handlers: LiveHandlers = {}): LiveSubscription {
		const watched = new Map(meetings.map((m) => [keyOf(m), { platform: m.platform, native_id: m.native_id }]));
		let socket: LiveSocket | undefined;
		let closed = false;
		let connections = 0;
		let failures = 0;
		let timer: ReturnType<typeof setTimeout> | undefined;
		let pinger: ReturnType<typeof setInterval> | undefined;
		let settleReady: (frame: SubscribedFrame) => void = () => undefined;
		let failReady: (error: LiveError) => void = () => undefined;
		const ready = new Promise<SubscribedFrame>((resolve, reject) => {
			settleReady = resolve;
			failReady = reject;
		});
		// A caller that only uses handlers must not see an unhandled rejection.
		ready.catch(() => undefined);

		const sendAction = (action: LiveAction) => socket?.send(JSON.stringify(action));
		// The feed takes at most 100 links a frame (docs/live-feed.md#limits).
		const sendLinks = (action: "subscribe" | "unsubscribe", links: LiveMeetingLink[]) => {
			for (let i = 0; i < links.length; i += LINKS_PER_FRAME) sendAction({ action, meetings: links.slice(i, i + LINKS_PER_FRAME) });
		};

		const retryLater = () => {
			if (closed) return;
			const delay = Math.min(maxBackoffMs, backoffMs * 2 ** failures) * (0.5 + Math.random() / 2);
			failures += 1;
			timer = setTimeout(connect, delay);
		};

		const stop = (error: LiveError) => {
			closed = true;
			handlers.onError?.(error);
			failReady(error);
		};

		async function connect(): Promise<void> {
			timer = undefined;
			if (closed) return;
			let current: LiveSocket;
			try {
				current = await open();
			} catch (err) {
				// Closed while connecting: the caller asked for no more calls.
				if (closed) return;
				const refused = err instanceof MeetbotApiError && (err.status === 401 || err.status === 403);
				const error =
					err instanceof LiveError ? err : new LiveError(`connecting to /ws failed: ${(err as Error).message}`, undefined, refused);
				if (error.fatal) return stop(error);
				handlers.onError?.(error);
				return retryLater();
			}
			if (closed) return current.close(1000, "closed");
			socket = current;
			connections += 1;
			const connection = connections;
			handlers.onConnect?.({ connection });
			clearInterval(pinger);
			if (options.pingMs) pinger = setInterval(() => sendAction({ action: "ping" }), options.pingMs);
			let lastError: Extract<LiveFrame, { type: "error" }> | undefined;
			current.addEventListener("message", (event) => {
				let frame: LiveFrame;
				try {
					frame = JSON.parse(String(event.data)) as LiveFrame;
				} catch {
					return;
				}
				if (frame.type === "subscribed") {
					failures = 0;
					handlers.onSubscribed?.(frame, { connection });
					settleReady(frame);
				} else if (frame.type === "unsubscribed") {
					if (frame.reason) {
						for (const m of frame.meetings) watched.delete(keyOf(m));
						handlers.onUnsubscribed?.(frame.meetings, frame.reason);
					}
				} else if (frame.type === "error") {
					lastError = frame;
					// A refused key or ticket is followed by the close, which decides what happens next.
					if (!REFUSALS.has(frame.error) || frame.status === 429)
						handlers.onError?.(new LiveError(`/ws: ${frame.detail ?? frame.error}`, frame, false));
				} else if (frame.type !== "pong") {
					handlers.onFrame?.(frame);
				}
			});
			current.addEventListener("close", (event) => {
				if (socket === current) {
					socket = undefined;
					clearInterval(pinger);
				}
				// A spent or expired ticket is not fatal: the next attempt takes a fresh one, and a bad key fails there.
				if (event.code === 4403 || (event.code === 4401 && mode === "header")) {
					handlers.onDisconnect?.({ code: event.code, reason: event.reason, willReconnect: false });
					return stop(new LiveError(`/ws refused the key: ${lastError?.detail ?? lastError?.error ?? event.reason}`, lastError, true));
				}
				handlers.onDisconnect?.({ code: event.code, reason: event.reason, willReconnect: !closed });
				retryLater();
			});
			if (watched.size > 0) sendLinks("subscribe", [...watched.values()]);
		}

		void connect();
		return {
			get meetings() {
				return [...watched.values()];
			},
			get connections() {
				return connections;
			},
			ready,
			add(more) {
				for (const m of more) watched.set(keyOf(m), { platform: m.platform, native_id: m.native_id });
				// Sent even for links already watched: subscribing again follows a link to its newest meeting.
				sendLinks("subscribe", more);
			},
			remove(gone) {
				for (const m of gone) watched.delete(keyOf(m));
				sendLinks("unsubscribe", gone);
			},
			close() {
				closed = true;
				if (timer) clearTimeout(timer);
				clearInterval(pinger);
				socket?.close(1000, "closed");
				socket = undefined;
			},
		};
	}

	return { subscribe };
}

export interface LiveFeedOptions extends Omit<LiveOptions, "connect"> {
	/** The gateway's origin, e.g. `https://meetbot.example.com` (a page's own `location.origin`). */
	baseUrl: string;
	/** A one-use ticket for each connection (POST /auth/ticket, however the caller reaches it). */
	ticket: () => Promise<{ ticket: string }>;
}

/**
 * The live feed alone, for a caller that gets its tickets its own way (the dashboard, whose key
 * stays in its own session): `subscribe` as `client.live.subscribe`, always on the ticket path.
 * A ticket call that throws a fatal LiveError stops the feed; any other failure is retried.
 */
export function createLiveFeed(options: LiveFeedOptions) {
	const { baseUrl, ticket, ...live } = options;
	const transport: Transport = {
		baseUrl,
		auth: {},
		fetch: () => Promise.reject(new LiveError("the ticket path does not fetch", undefined, true)),
	};
	return createLive(transport, ticket, { ...live, connect: "ticket" });
}

type LiveSocketConstructor = new (url: string) => LiveSocket;

/**
 * The package name in a variable, so that bundlers leave the import alone: a browser or Workers
 * bundle never contains `ws`, and Node resolves it at run time from the caller's node_modules.
 */
const WS_PACKAGE: string = "ws";

/**
 * The runtime's global WebSocket (browsers, Workers, Node 22), else the `ws` package, an optional
 * peer dependency loaded only here (Node 20 has no global WebSocket). Neither: a fatal LiveError,
 * which reaches `onError` and `ready` like any other refusal, never an uncaught throw.
 */
async function defaultWebSocket(): Promise<WebSocketFactory> {
	const Global = (globalThis as { WebSocket?: LiveSocketConstructor }).WebSocket;
	if (Global) return (url) => new Global(url);
	let Constructor: LiveSocketConstructor | undefined;
	let problem = "is not installed";
	try {
		const module = (await import(/* webpackIgnore: true */ /* @vite-ignore */ WS_PACKAGE)) as {
			WebSocket?: LiveSocketConstructor;
			default?: LiveSocketConstructor;
		};
		Constructor = module.WebSocket ?? module.default;
		if (typeof Constructor !== "function") problem = "exports no WebSocket";
	} catch (err) {
		const code = (err as { code?: unknown }).code;
		if (code !== "ERR_MODULE_NOT_FOUND" && code !== "MODULE_NOT_FOUND") problem = `could not be loaded (${(err as Error).message})`;
	}
	if (typeof Constructor !== "function")
		throw new LiveError(
			`this runtime has no global WebSocket (Node 20 has none) and the optional \`ws\` package ${problem}: run \`npm install ws\`, or pass live.webSocket`,
			undefined,
			true,
		);
	const WebSocketOfWs = Constructor;
	return (url) => new WebSocketOfWs(url);
}
