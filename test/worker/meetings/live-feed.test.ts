import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, joinWorkspace, userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
// Golden frames of /ws (docs/live-feed.md): the frames existing /ws clients parse.
import missingKeyGolden from "./golden/Error.missing-key.json";
import unknownActionGolden from "./golden/Error.unknown-action.json";
import statusGolden from "./golden/MeetingStatus.active.json";
import subscribedGolden from "./golden/Subscribed.ack.json";
import bundleGolden from "./golden/Transcript.bundle.json";
import { createPlan, liveMeeting, meetUrl, segment } from "./helpers";

const ref = (native_id: string) => ({ platform: "google_meet", native_id });
const isBundleOf = (id: number, text: string) => (m: Record<string, unknown>) =>
	m.type === "transcript" && (m.meeting as { id: number }).id === id && JSON.stringify(m.confirmed).includes(text);

async function subscribed(socket: SocketClient, natives: string[]) {
	const before = socket.messages.length;
	socket.send({ action: "subscribe", meetings: natives.map(ref) });
	return eventually("subscribed ack", () => socket.messages.slice(before).find((m) => m.type === "subscribed"));
}

/*
 * A message that must not arrive is checked after a ping answered on that socket: the bot's segment
 * is acked once the room has sent it to every watcher's feed, so anything sent would be ahead of the pong.
 */

const sortedKeys = (o: object) => Object.keys(o).sort();

describe("/ws authentication", () => {
	it("reports a missing key in-band (the golden frame) and closes with 4401", async () => {
		const socket = await openSocket("/ws", {});
		await eventually("close", () => socket.closed);
		expect(socket.messages).toEqual([missingKeyGolden]);
		expect(socket.closed?.code).toBe(4401);
	});

	it("closes with 4401 for an unknown key", async () => {
		const socket = await openSocket("/ws", { "X-API-Key": "vxa_bot_not-a-real-key-0000000000" });
		await eventually("close", () => socket.closed);
		expect(socket.closed?.code).toBe(4401);
		expect(socket.messages).toEqual([{ type: "error", error: "authorization_service_error", status: 401, detail: "Invalid API key" }]);
	});

	it("closes with 4403 for a key without a bot or tx scope", async () => {
		const { key } = await userWithKey("browser");
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await eventually("close", () => socket.closed);
		expect(socket.closed?.code).toBe(4403);
		expect(socket.messages[0]).toEqual({
			type: "error",
			error: "authorization_service_error",
			status: 403,
			detail:
				'Token scope not authorized for this endpoint: this API key lacks the "bot" or "tx" scope needed for GET /ws; it has: browser',
		});
	});

	it("takes the key as Authorization: Bearer as well", async () => {
		const { key, headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(code) });
		const socket = await openSocket("/ws", { Authorization: `Bearer ${key}` });
		expect(await subscribed(socket, [code])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		socket.close();
	});

	it("takes the key from ?api_key= as well as the header", async () => {
		const { key, headers } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(code) });
		const socket = await openSocket(`/ws?api_key=${encodeURIComponent(key)}`, {});
		expect(await subscribed(socket, [code])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		expect(socket.closed).toBeUndefined();
		socket.close();
	});

	it("answers a plain GET with 426, not a socket", async () => {
		const { headers } = await userWithKey();
		const res = await SELF.fetch("https://gateway.test/ws", { headers });
		expect(res.status).toBe(426);
	});
});

describe("/ws control messages", () => {
	it("reports invalid_json, unknown_action and bad subscribe/unsubscribe payloads, and stays open", async () => {
		const { key } = await userWithKey();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.socket.send("{not json");
		await socket.waitFor("invalid_json", (m) => m.error === "invalid_json");
		socket.send({ action: "dance" });
		await socket.waitFor("unknown_action", (m) => m.error === "unknown_action");
		socket.send({ no_action: true });
		await eventually("second unknown_action", () =>
			socket.messages.filter((m) => m.error === "unknown_action").length === 2 ? true : undefined,
		);
		for (const bad of [
			{ action: "subscribe" },
			{ action: "subscribe", meetings: [] },
			{ action: "subscribe", meetings: [{ platform: "google_meet" }] },
		]) {
			socket.send(bad);
		}
		await eventually("three invalid_subscribe_payload", () =>
			socket.messages.filter((m) => m.error === "invalid_subscribe_payload").length === 3 ? true : undefined,
		);
		socket.send({ action: "unsubscribe", meetings: "all" });
		const unsub = await socket.waitFor("invalid_unsubscribe_payload", (m) => m.error === "invalid_unsubscribe_payload");
		expect(unsub).toMatchObject({ type: "error", details: expect.any(Array) });
		socket.send({ action: "ping" });
		await socket.waitFor("pong", (m) => m.type === "pong");

		expect(socket.messages.find((m) => m.error === "unknown_action")).toEqual(unknownActionGolden);
		expect(socket.messages.find((m) => m.error === "invalid_json")).toEqual({ type: "error", error: "invalid_json" });
		expect(socket.closed).toBeUndefined();
		socket.close();
	});
});

describe("/ws subscriptions", () => {
	it("subscribes to several meetings on one connection and delivers each meeting's frames", async () => {
		const { key, headers } = await userWithKey();
		const one = await liveMeeting(headers);
		const two = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		const ack = await subscribed(socket, [one.code, two.code]);
		expect(ack).toEqual({ type: "subscribed", meetings: [ref(one.code), ref(two.code)] });
		expect(sortedKeys(ack)).toEqual(sortedKeys(subscribedGolden));

		await one.bot.send({ type: "segment", segment: segment({ text: "from one" }) });
		await two.bot.send({ type: "segment", segment: segment({ text: "from two", speaker: "Bob" }) });
		const first = await socket.waitFor("bundle of one", isBundleOf(one.meeting.id, "from one"));
		const second = await socket.waitFor("bundle of two", isBundleOf(two.meeting.id, "from two"));
		expect(first).toMatchObject({ meeting: { id: one.meeting.id, platform: "google_meet", native_id: one.code }, speaker: "Alice" });
		expect(second).toMatchObject({ meeting: { id: two.meeting.id, native_id: two.code }, speaker: "Bob", pending: [] });
		// The bundle keeps the contract's keys (extra keys are allowed, none may be missing).
		for (const key of Object.keys(bundleGolden)) expect(first).toHaveProperty(key);
		socket.close();
	});

	it("never delivers another user's meeting: its link waits, like one with no meeting yet, and says nothing of it", async () => {
		const me = await userWithKey();
		const other = await userWithKey();
		const mine = meetCode();
		const theirs = meetCode();
		await createPlan(me.headers, { meeting_url: meetUrl(mine) });
		const theirLive = await liveMeeting(other.headers, theirs);
		const socket = await openSocket("/ws", { "X-API-Key": me.key });
		const nowhere = meetCode();
		// Waiting (docs/live-feed.md#client--server) binds only to a meeting this user makes there.
		expect(await subscribed(socket, [mine, theirs, nowhere])).toEqual({
			type: "subscribed",
			meetings: [ref(mine), ref(theirs), ref(nowhere)],
			waiting: [ref(theirs), ref(nowhere)],
		});
		await theirLive.bot.send({ type: "segment", segment: segment({ text: "private" }) });
		await socket.pingPong();
		expect(socket.messages.filter((m) => m.type === "transcript")).toEqual([]);
		socket.close();
	});

	it("lets a workspace member subscribe to a meeting bound to the workspace", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const outsider = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		const code = meetCode();
		await joinWorkspace(workspace, owner.user.id);
		await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		await env.DB.prepare("INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)").bind(workspace, member.user.id).run();
		const live = await liveMeeting(owner.headers, code);

		const memberSocket = await openSocket("/ws", { "X-API-Key": member.key });
		expect(await subscribed(memberSocket, [code])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		const outsiderSocket = await openSocket("/ws", { "X-API-Key": outsider.key });
		expect(await subscribed(outsiderSocket, [code])).toEqual({ type: "subscribed", meetings: [ref(code)], waiting: [ref(code)] });

		await live.bot.send({ type: "segment", segment: segment({ text: "for the team" }) });
		await memberSocket.waitFor("member gets the bundle", isBundleOf(live.meeting.id, "for the team"));
		await outsiderSocket.pingPong();
		expect(outsiderSocket.messages.filter((m) => m.type === "transcript")).toEqual([]);
		memberSocket.close();
		outsiderSocket.close();
	});

	it("delivers to every socket of one user", async () => {
		const { key, headers } = await userWithKey();
		const live = await liveMeeting(headers);
		const a = await openSocket("/ws", { "X-API-Key": key });
		const b = await openSocket("/ws", { "X-API-Key": key });
		await subscribed(a, [live.code]);
		await subscribed(b, [live.code]);
		await live.bot.send({ type: "segment", segment: segment({ text: "both of you" }) });
		await a.waitFor("a", isBundleOf(live.meeting.id, "both of you"));
		await b.waitFor("b", isBundleOf(live.meeting.id, "both of you"));
		a.close();
		b.close();
	});

	it("stops delivery to an unsubscribed socket while the user's other socket keeps receiving", async () => {
		const { key, headers } = await userWithKey();
		const live = await liveMeeting(headers);
		const leaving = await openSocket("/ws", { "X-API-Key": key });
		const staying = await openSocket("/ws", { "X-API-Key": key });
		await subscribed(leaving, [live.code]);
		await subscribed(staying, [live.code]);

		leaving.send({ action: "unsubscribe", meetings: [ref(live.code)] });
		expect(await leaving.waitFor("unsubscribed", (m) => m.type === "unsubscribed")).toEqual({
			type: "unsubscribed",
			meetings: [ref(live.code)],
		});
		await live.bot.send({ type: "segment", segment: segment({ text: "after unsubscribe" }) });
		await staying.waitFor("still subscribed", isBundleOf(live.meeting.id, "after unsubscribe"));
		await leaving.pingPong();
		expect(leaving.messages.filter((m) => m.type === "transcript")).toEqual([]);
		leaving.close();
		staying.close();
	});

	it("stops delivery to a user who unsubscribed their only socket, while another user keeps receiving", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = `ws-${crypto.randomUUID()}`;
		const code = meetCode();
		await joinWorkspace(workspace, owner.user.id);
		await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		await env.DB.prepare("INSERT INTO workspace_members (workspace_id, user_id) VALUES (?, ?)").bind(workspace, member.user.id).run();
		const live = await liveMeeting(owner.headers, code);
		const ownerSocket = await openSocket("/ws", { "X-API-Key": owner.key });
		const memberSocket = await openSocket("/ws", { "X-API-Key": member.key });
		await subscribed(ownerSocket, [code]);
		await subscribed(memberSocket, [code]);
		await live.bot.send({ type: "segment", segment: segment({ segment_id: "s-a", text: "before" }) });
		await memberSocket.waitFor("member before", isBundleOf(live.meeting.id, "before"));

		memberSocket.send({ action: "unsubscribe", meetings: [ref(code)] });
		await memberSocket.waitFor("unsubscribed", (m) => m.type === "unsubscribed");
		await live.bot.send({ type: "segment", segment: segment({ segment_id: "s-b", text: "after" }) });
		await ownerSocket.waitFor("owner after", isBundleOf(live.meeting.id, "after"));
		await memberSocket.pingPong();
		expect(memberSocket.messages.filter(isBundleOf(live.meeting.id, "after"))).toEqual([]);
		ownerSocket.close();
		memberSocket.close();
	});

	it("keeps delivering to the other socket after one socket of the user closes", async () => {
		const { key, headers } = await userWithKey();
		const live = await liveMeeting(headers);
		const closing = await openSocket("/ws", { "X-API-Key": key });
		const staying = await openSocket("/ws", { "X-API-Key": key });
		await subscribed(closing, [live.code]);
		await subscribed(staying, [live.code]);
		closing.close();
		// One feed serves both sockets: it has handled the close sent ahead of this ping.
		await staying.pingPong();
		await live.bot.send({ type: "segment", segment: segment({ text: "still here" }) });
		await staying.waitFor("delivered after a sibling closed", isBundleOf(live.meeting.id, "still here"));
		staying.close();
	});
});

describe("meeting.status frames", () => {
	it("follow the golden /ws shape (docs/live-feed.md) through a lifecycle", async () => {
		const { key, headers, user } = await userWithKey();
		const code = meetCode();
		await createPlan(headers, { meeting_url: meetUrl(code) });
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribed(socket, [code]);
		const live = await liveMeeting(headers, code);
		await call("DELETE", `/bots/google_meet/${code}`, { headers });
		await live.bot.status("completed");
		const statuses = () => socket.messages.filter((m) => m.type === "meeting.status");
		await eventually("completed frame", () =>
			statuses().some((m) => (m.payload as { status: string }).status === "completed") ? true : undefined,
		);
		expect(statuses().map((m) => (m.payload as { status: string }).status)).toEqual(["requested", "active", "stopping", "completed"]);
		for (const frame of statuses()) {
			expect(sortedKeys(frame)).toEqual(sortedKeys(statusGolden));
			expect(sortedKeys(frame.meeting as object)).toEqual(sortedKeys(statusGolden.meeting));
			expect(frame).toMatchObject({
				type: "meeting.status",
				meeting: { id: live.meeting.id, platform: "google_meet", native_id: code },
				payload: { status: expect.any(String) },
				user_id: user.id,
			});
			expect(Object.keys(frame.payload as object).every((k) => k === "status" || k === "data")).toBe(true);
			expect(Number.isNaN(Date.parse(frame.ts as string))).toBe(false);
		}
		expect(statuses().at(-1)?.payload).toEqual({ status: "completed", data: { reason: null, completion_reason: "stopped" } });
		socket.close();
	});
});

describe("a subscription on a reused link", () => {
	it("follows the user's next meeting on the same link, so a retry is watched without subscribing again", async () => {
		const { key, headers } = await userWithKey();
		const { meeting: first, bot, code } = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribed(socket, [code]);
		await bot.status("failed", { completion_reason: "evicted" });
		await socket.waitFor(
			"the first meeting ended",
			(m) =>
				m.type === "meeting.status" &&
				(m.meeting as { id: number }).id === first.id &&
				(m.payload as { status: string }).status === "failed",
		);

		const { meeting: second, bot: again } = await liveMeeting(headers, code);
		expect(second.id).not.toBe(first.id);
		await socket.waitFor("the retry's status", (m) => m.type === "meeting.status" && (m.meeting as { id: number }).id === second.id);
		await again.send({ type: "segment", segment: segment({ segment_id: "r-1", speaker: "Mina", text: "Back again." }) });
		await socket.waitFor("the retry's segment", isBundleOf(second.id, "Back again."));
	});
});
