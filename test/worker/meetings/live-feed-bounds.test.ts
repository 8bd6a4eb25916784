import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LiveFeed } from "../../../durable-objects/live-feed";
import { LIVE_FEED_STORAGE } from "../../../durable-objects/live-feed/storage";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
import { liveMeeting, segment } from "./helpers";

const ref = (native_id: string) => ({ platform: "google_meet", native_id });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `n` idle plans on distinct Meet links, written straight to D1; returns their codes. */
async function plansOnLinks(userId: number, n: number): Promise<string[]> {
	const now = new Date().toISOString();
	const codes = Array.from({ length: n }, () => meetCode());
	const insert = env.DB.prepare(
		"INSERT INTO meetings (user_id, platform, native_meeting_id, constructed_meeting_url, status, data, created_at, updated_at) VALUES (?, 'google_meet', ?, ?, 'idle', '{}', ?, ?)",
	);
	await env.DB.batch(codes.map((code) => insert.bind(userId, code, `https://meet.google.com/${code}`, now, now)));
	return codes;
}

/** Sends one control frame and waits for the next reply to it. */
async function request(socket: SocketClient, message: unknown) {
	const before = socket.messages.length;
	socket.send(message);
	return eventually("a reply", () => socket.messages[before], 15_000);
}

describe("/ws subscriptions per connection", () => {
	it("caps a connection at 200 meetings with an in-band error, keeps the 200, and stays usable", async () => {
		const { user, key, headers } = await userWithKey();
		const codes = await plansOnLinks(user.id, 201);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		for (const batch of [codes.slice(0, 100), codes.slice(100, 200)]) {
			const ack = await request(socket, { action: "subscribe", meetings: batch.map(ref) });
			expect(ack).toEqual({ type: "subscribed", meetings: batch.map(ref) });
		}
		// Re-subscribing what it already holds is not growth.
		expect(await request(socket, { action: "subscribe", meetings: [ref(codes[0] ?? "")] })).toMatchObject({ type: "subscribed" });

		const over = await request(socket, { action: "subscribe", meetings: [ref(codes[200] ?? "")] });
		expect(over).toEqual({
			type: "error",
			error: "invalid_subscribe_payload",
			details: ["At most 200 meetings per connection: this one watches 200, the request adds 1"],
		});
		expect(socket.closed).toBeUndefined();
		expect(await request(socket, { action: "ping" })).toEqual({ type: "pong" });

		// Subscriptions live in storage, not in the hibernation attachment (which workerd caps).
		const feed = env.LIVE_FEED.get(env.LIVE_FEED.idFromName(String(user.id)));
		const stored = await runInDurableObject(feed, async (_feed: LiveFeed, state) => {
			const entries = [
				...(await state.storage.list<Record<string, unknown>>({ prefix: LIVE_FEED_STORAGE.keys.subscriptionsPrefix })).values(),
			];
			return entries.map((e) => Object.keys(e).length);
		});
		expect(stored).toEqual([200]);

		// A slot freed by unsubscribing can be used again, and the last subscription still delivers.
		await request(socket, { action: "unsubscribe", meetings: [ref(codes[0] ?? "")] });
		expect(await request(socket, { action: "subscribe", meetings: [ref(codes[200] ?? "")] })).toEqual({
			type: "subscribed",
			meetings: [ref(codes[200] ?? "")],
		});
		const live = await liveMeeting(headers, codes[199]);
		await live.bot.send({ type: "segment", segment: segment({ text: "number 200" }) });
		await socket.waitFor("delivery to the 200th subscription", (m) => m.type === "transcript" && JSON.stringify(m).includes("number 200"));
		socket.close();
	});
});

describe("/ws connections per user", () => {
	it("refuses the 21st open connection in-band with 429 and close code 1013, and a closed one frees its place", async () => {
		const { key } = await userWithKey();
		// The first frame tells: a pong for an accepted connection, the error for a refused one.
		const open = async (apiKey = key) => {
			const socket = await openSocket("/ws", { "X-API-Key": apiKey });
			try {
				socket.send({ action: "ping" });
			} catch {
				// already closed by the refusal
			}
			const first = await eventually("the first frame", () => socket.messages[0]);
			return { socket, first };
		};
		const sockets: SocketClient[] = [];
		for (let i = 0; i < 20; i++) {
			const { socket, first } = await open();
			expect(first, `connection ${i + 1}`).toEqual({ type: "pong" });
			sockets.push(socket);
		}
		const refused = await open();
		expect(refused.first).toEqual({
			type: "error",
			error: "authorization_service_error",
			status: 429,
			detail: "Too many live connections: at most 20 per user are open at once; close one first",
		});
		await eventually("the refused socket's close", () => refused.socket.closed);
		expect(refused.socket.closed?.code).toBe(1013);
		for (const socket of sockets) expect(socket.closed).toBeUndefined();

		// Another user's connections are their own.
		const other = await userWithKey();
		const others = await open(other.key);
		expect(others.first).toEqual({ type: "pong" });
		others.socket.close();

		sockets.shift()?.close();
		const next = await eventually("a place freed by the closed connection", async () => {
			const attempt = await open();
			return attempt.first.type === "pong" ? attempt.socket : undefined;
		});
		expect(next.closed).toBeUndefined();
		for (const socket of [...sockets, next]) socket.close();
	});
});

describe("/ws re-subscribing a link", () => {
	it("moves the subscription to the meeting the link now leads to, without holding two", async () => {
		const { user, key, headers } = await userWithKey();
		const [code = ""] = await plansOnLinks(user.id, 1);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await request(socket, { action: "subscribe", meetings: [ref(code)] });
		const old = await env.DB.prepare("SELECT id FROM meetings WHERE native_meeting_id = ?").bind(code).first<number>("id");
		await env.DB.prepare("DELETE FROM meetings WHERE id = ?").bind(old).run();

		const live = await liveMeeting(headers, code);
		expect(live.meeting.id).not.toBe(old);
		expect(await request(socket, { action: "subscribe", meetings: [ref(code), ref(code)] })).toEqual({
			type: "subscribed",
			meetings: [ref(code)],
		});
		const feed = env.LIVE_FEED.get(env.LIVE_FEED.idFromName(String(user.id)));
		const stored = await runInDurableObject(feed, async (_feed: LiveFeed, state) => [
			...(await state.storage.list<Record<string, unknown>>({ prefix: LIVE_FEED_STORAGE.keys.subscriptionsPrefix })).values(),
		]);
		expect(stored.map((subs) => Object.keys(subs))).toEqual([[String(live.meeting.id)]]);
		await live.bot.send({ type: "segment", segment: segment({ text: "on the new meeting" }) });
		await socket.waitFor("delivery", (m) => m.type === "transcript" && JSON.stringify(m).includes("on the new meeting"));
		socket.close();
	});
});

describe("/ws control frame rate", () => {
	it("answers frames past 20/s (burst 30) with an in-band 429 error, then serves the socket again", async () => {
		const { key } = await userWithKey();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		for (let i = 0; i < 80; i++) socket.send({ action: "ping" });
		await eventually("80 replies", () => (socket.messages.length >= 80 ? true : undefined));
		const pongs = socket.messages.filter((m) => m.type === "pong").length;
		const limited = socket.messages.filter((m) => m.type === "error");
		expect(pongs).toBeGreaterThanOrEqual(30);
		expect(limited.length).toBeGreaterThan(0);
		expect(limited.length).toBe(80 - pongs);
		expect(limited[0]).toEqual({
			type: "error",
			error: "authorization_service_error",
			status: 429,
			detail: "Rate limit exceeded: at most 20 control messages per second",
		});
		expect(socket.closed).toBeUndefined();

		await pause(1100);
		expect(await request(socket, { action: "ping" })).toEqual({ type: "pong" });
		socket.close();
	});
});
