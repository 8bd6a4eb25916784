/**
 * `createLiveFeed` (the client's live feed for a caller that gets its own tickets, as the
 * dashboard does) on the real Worker: each connection takes a ticket from the caller's call and
 * opens `/ws?ticket=`, `onConnect` comes before the subscription, `pingMs` pings, and a fatal
 * LiveError from the ticket call stops the feed. Workerd cannot dial gateway.test, so the
 * WebSocket the feed opens is a thin adapter over SELF's upgrade, as a browser's would be.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createLiveFeed, LiveError, type LiveSocket, type MeetingFrame, type WebSocketFactory } from "../../../packages/client/src/index";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { liveMeeting, segment } from "../meetings/helpers";
import { userWithKey } from "../support";

type Listener = Parameters<LiveSocket["addEventListener"]>[1];

/** A browser-like WebSocket on SELF: `open` once the upgrade is answered; what is sent is recorded. */
function selfWebSocket(opened: string[], sent: string[]): WebSocketFactory {
	return (url) => {
		opened.push(url);
		const listeners = new Map<string, Listener[]>();
		const emit = (type: string, event: Parameters<Listener>[0]) => {
			for (const listener of listeners.get(type) ?? []) listener(event);
		};
		let socket: WebSocket | undefined;
		void SELF.fetch(url.replace(/^ws/, "http"), { headers: { Upgrade: "websocket" } }).then((res) => {
			socket = res.webSocket ?? undefined;
			if (!socket) return emit("error", {});
			socket.accept();
			socket.addEventListener("message", (e) => emit("message", { data: e.data }));
			socket.addEventListener("close", (e) => emit("close", { code: e.code, reason: e.reason }));
			emit("open", {});
		});
		return {
			send: (data) => {
				sent.push(data);
				socket?.send(data);
			},
			close: (code, reason) => socket?.close(code, reason),
			addEventListener: (type, listener) => listeners.set(type, [...(listeners.get(type) ?? []), listener]),
		};
	};
}

describe("createLiveFeed: the live feed on the caller's own tickets", () => {
	it("opens /ws with a fresh ticket, tells the connection before subscribing, delivers frames and pings", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const live = await liveMeeting(headers, code);
		let tickets = 0;
		const ticket = async () => {
			tickets += 1;
			const res = await SELF.fetch("https://gateway.test/auth/ticket", { method: "POST", headers });
			return (await res.json()) as { ticket: string };
		};
		const opened: string[] = [];
		const sent: string[] = [];
		const order: string[] = [];
		const frames: MeetingFrame[] = [];
		const feed = createLiveFeed({ baseUrl: "https://gateway.test", ticket, webSocket: selfWebSocket(opened, sent), pingMs: 50 }).subscribe(
			[{ platform: "google_meet", native_id: code }],
			{
				onConnect: ({ connection }) => order.push(`connect ${connection}`),
				onSubscribed: () => order.push("subscribed"),
				onFrame: (frame) => frames.push(frame),
			},
		);
		try {
			await feed.ready;
			expect(order).toEqual(["connect 1", "subscribed"]);
			expect(tickets).toBe(1);
			expect(opened).toEqual([expect.stringMatching(/^wss:\/\/gateway\.test\/ws\?ticket=wst_\d+_[\w-]{43}$/)]);
			await live.bot.send({ type: "segment", segment: segment({ text: "On a ticket." }) });
			const bundle = await eventually("transcript", () => frames.find((f) => f.type === "transcript"));
			expect(bundle.type === "transcript" && bundle.confirmed[0]?.text).toBe("On a ticket.");
			await eventually("a ping", () => sent.find((text) => JSON.parse(text).action === "ping"));
			expect(feed.connections).toBe(1);
		} finally {
			feed.close();
		}
	});

	it("stops at once when the ticket call throws a fatal LiveError (a signed-out page), opening no socket", async () => {
		const opened: string[] = [];
		const errors: LiveError[] = [];
		const feed = createLiveFeed({
			baseUrl: "https://gateway.test",
			ticket: () => Promise.reject(new LiveError("the key was refused", undefined, true)),
			webSocket: selfWebSocket(opened, []),
			backoffMs: 10,
		}).subscribe([{ platform: "google_meet", native_id: meetCode() }], { onError: (e) => errors.push(e) });
		await expect(feed.ready).rejects.toMatchObject({ fatal: true, message: "the key was refused" });
		expect(errors.map((e) => e.fatal)).toEqual([true]);
		expect(opened).toEqual([]);
		expect(feed.connections).toBe(0);
	});

	it("calls no handler once closed, even for a ticket call that fails after the close", async () => {
		let fail: (err: Error) => void = () => undefined;
		const ticket = () => new Promise<{ ticket: string }>((_, reject) => (fail = reject));
		const errors: LiveError[] = [];
		const feed = createLiveFeed({ baseUrl: "https://gateway.test", ticket, webSocket: selfWebSocket([], []), backoffMs: 10 }).subscribe(
			[{ platform: "google_meet", native_id: meetCode() }],
			{ onError: (e) => errors.push(e) },
		);
		feed.close();
		fail(new Error("network down"));
		// The rejection reaches the feed in microtasks, all of them run before the next task.
		await new Promise((resolve) => setTimeout(resolve, 0));
		expect(errors).toEqual([]);
		expect(feed.connections).toBe(0);
	});

	it("retries a ticket call that fails for another reason", async () => {
		const { headers } = await userWithKey();
		let tickets = 0;
		const ticket = async () => {
			tickets += 1;
			if (tickets === 1) throw new Error("network down");
			const res = await SELF.fetch("https://gateway.test/auth/ticket", { method: "POST", headers });
			return (await res.json()) as { ticket: string };
		};
		const errors: LiveError[] = [];
		const feed = createLiveFeed({ baseUrl: "https://gateway.test", ticket, webSocket: selfWebSocket([], []), backoffMs: 10 }).subscribe(
			[{ platform: "google_meet", native_id: meetCode() }],
			{ onError: (e) => errors.push(e) },
		);
		try {
			await feed.ready;
			expect(tickets).toBe(2);
			expect(errors.map((e) => e.fatal)).toEqual([false]);
			expect(feed.connections).toBe(1);
		} finally {
			feed.close();
		}
	});
});
