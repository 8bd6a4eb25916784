/**
 * /ws subscriptions to a link before any meeting is on it (docs/live-feed.md#client--server):
 * accepted and reported as `waiting`, then bound to the first meeting the user makes on that link,
 * so its frames arrive from its very first step. Only the user's own meeting binds: a meeting
 * someone else makes on the same link never reaches the socket.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LiveFeed } from "../../../durable-objects/live-feed";
import { LIVE_FEED_STORAGE } from "../../../durable-objects/live-feed/storage";
import { FeedSubscriptions, refKey } from "../../../durable-objects/live-feed/subscriptions";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { calendar, connect, firstSync, newFeed, serveFeed, utcIn, vevent } from "../calendars/feeds";
import { call, sharedWorkspace, userWithKey } from "../support";
import { openSocket, SimulatedBot, type SocketClient, spawnRequestFor } from "./bot-sim";
import { createPlan, liveMeeting, meetUrl, segment, sendBot } from "./helpers";

const ref = (native_id: string) => ({ platform: "google_meet", native_id });
/*
 * A frame that must not arrive is checked after a ping answered on that socket: the bot's messages are
 * acked once the room has sent them to every watcher's feed, so anything sent would be ahead of the pong.
 */

async function subscribe(socket: SocketClient, refs: { platform: string; native_id: string }[]) {
	const before = socket.messages.length;
	socket.send({ action: "subscribe", meetings: refs });
	return eventually("subscribed ack", () => socket.messages.slice(before).find((m) => m.type === "subscribed"));
}

const meetingIdOf = (m: Record<string, unknown>) => (m.meeting as { id: number } | undefined)?.id;
const statusesOf = (socket: SocketClient, meetingId: number) =>
	socket.messages
		.filter((m) => m.type === "meeting.status" && meetingIdOf(m) === meetingId)
		.map((m) => (m.payload as { status: string }).status);
const framesAbout = (socket: SocketClient, meetingId: number) => socket.messages.filter((m) => meetingIdOf(m) === meetingId);
const feedOf = (userId: number) => env.LIVE_FEED.get(env.LIVE_FEED.idFromName(String(userId)));

describe("/ws subscribe to a link with no meeting yet", () => {
	it("is accepted as waiting, and the user's bot sent there later streams to the socket from its first step", async () => {
		const { key, headers } = await userWithKey();
		const code = meetCode();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		expect(await subscribe(socket, [ref(code)])).toEqual({ type: "subscribed", meetings: [ref(code)], waiting: [ref(code)] });

		const meeting = await sendBot(headers, code);
		await eventually("the requested frame", () => (statusesOf(socket, meeting.id).includes("requested") ? true : undefined));
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("active");
		await bot.send({ type: "segment", segment: segment({ text: "first words" }) });
		await bot.send({ type: "event", name: "speak.started", payload: { text: "Hello", provider: "espeak" } });
		await socket.waitFor("the bundle", (m) => m.type === "transcript" && JSON.stringify(m.confirmed).includes("first words"));
		expect(await socket.waitFor("speak.started", (m) => m.type === "speak.started")).toMatchObject({
			meeting: { id: meeting.id, native_id: code },
			text: "Hello",
		});
		expect(statusesOf(socket, meeting.id)).toEqual(["requested", "active"]);

		// The link now leads to that meeting: subscribing again is an ordinary subscription, not a wait.
		expect(await subscribe(socket, [ref(code)])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		socket.close();
	});

	it("binds to a plan made on the link (POST /meetings), and to one a calendar sync makes", async () => {
		const { key, headers } = await userWithKey();
		const [planned, synced] = [meetCode(), meetCode()];
		const socket = await openSocket("/ws", { "X-API-Key": key });
		expect(await subscribe(socket, [ref(planned), ref(synced)])).toMatchObject({ waiting: [ref(planned), ref(synced)] });

		const plan = await createPlan(headers, { meeting_url: meetUrl(planned) });
		await eventually("the plan's frame", () => (statusesOf(socket, plan.id).includes("idle") ? true : undefined));

		const feed = newFeed();
		await serveFeed(
			feed,
			calendar(vevent({ UID: "w@x", DTSTART: utcIn(3), DURATION: "PT30M", SUMMARY: "Sync", LOCATION: meetUrl(synced) })),
		);
		// A new calendar syncs at once: its plan exists when the connection is answered.
		expect(firstSync(await connect(headers, feed)).counts).toMatchObject({ created: 1 });
		const listed = (await (await call("GET", "/meetings", { headers })).json()) as {
			meetings: { id: number; native_meeting_id: string }[];
		};
		const fromCalendar = listed.meetings.find((m) => m.native_meeting_id === synced)?.id ?? 0;
		await eventually("the calendar plan's frame", () => (statusesOf(socket, fromCalendar).includes("scheduled") ? true : undefined));

		// Both are now watched by id: a bot on the calendar's plan streams to the socket.
		const live = await liveMeeting(headers, synced);
		expect(live.meeting.id).toBe(fromCalendar);
		await live.bot.send({ type: "segment", segment: segment({ text: "from the calendar's meeting" }) });
		await socket.waitFor("the bundle", (m) => m.type === "transcript" && JSON.stringify(m.confirmed).includes("calendar's meeting"));
		socket.close();
	});

	it("never delivers another user's meeting on that link, then or later, while the user's own still arrives", async () => {
		const me = await userWithKey();
		const other = await userWithKey();
		const code = meetCode();
		const socket = await openSocket("/ws", { "X-API-Key": me.key });
		expect(await subscribe(socket, [ref(code)])).toMatchObject({ waiting: [ref(code)] });

		// Someone else sends a bot to the same link, and it talks.
		const theirs = await liveMeeting(other.headers, code);
		await theirs.bot.send({ type: "segment", segment: segment({ text: "their private words" }) });
		await theirs.bot.send({ type: "chat", message: { sender: "Eve", text: "their chat", timestamp: Date.now(), is_from_bot: false } });
		await socket.pingPong();
		expect(framesAbout(socket, theirs.meeting.id)).toEqual([]);

		// Their meeting is on the link now; re-subscribing still waits (the answer does not tell it exists).
		expect(await subscribe(socket, [ref(code)])).toEqual({ type: "subscribed", meetings: [ref(code)], waiting: [ref(code)] });

		// The user's own bot on the link binds the socket; the other meeting stays out.
		const mine = await liveMeeting(me.headers, code);
		await mine.bot.send({ type: "segment", segment: segment({ text: "my words" }) });
		await theirs.bot.send({ type: "segment", segment: segment({ segment_id: "s-2", text: "their later words" }) });
		await socket.waitFor("my bundle", (m) => m.type === "transcript" && JSON.stringify(m.confirmed).includes("my words"));
		await socket.pingPong();
		expect(framesAbout(socket, theirs.meeting.id)).toEqual([]);
		expect(JSON.stringify(socket.messages)).not.toContain("their");
		socket.close();
	});

	it("waits for the user's own meeting even when a workspace they belong to gets one on the link", async () => {
		const owner = await userWithKey();
		const member = await userWithKey();
		const workspace = await sharedWorkspace(owner.user.id, member.user.id);
		const code = meetCode();
		const socket = await openSocket("/ws", { "X-API-Key": member.key });
		expect(await subscribe(socket, [ref(code)])).toMatchObject({ waiting: [ref(code)] });

		// A meeting the member may read, made by someone else: the wait does not take it, a new subscribe does.
		await createPlan(owner.headers, { meeting_url: meetUrl(code), workspace_id: workspace });
		const live = await liveMeeting(owner.headers, code);
		await socket.pingPong();
		expect(framesAbout(socket, live.meeting.id)).toEqual([]);
		expect(await subscribe(socket, [ref(code)])).toEqual({ type: "subscribed", meetings: [ref(code)] });
		await live.bot.send({ type: "segment", segment: segment({ text: "for the team" }) });
		await socket.waitFor("the bundle", (m) => m.type === "transcript" && JSON.stringify(m.confirmed).includes("for the team"));
		socket.close();
	});

	it("drops a wait on unsubscribe and on close, keeps it in storage across a reload, and denies unknown platforms", async () => {
		const { key, headers, user } = await userWithKey();
		const [dropped, kept] = [meetCode(), meetCode()];
		const socket = await openSocket("/ws", { "X-API-Key": key });
		expect(await subscribe(socket, [ref(dropped), ref(kept), { platform: "discord", native_id: "x" }])).toEqual({
			type: "subscribed",
			meetings: [ref(dropped), ref(kept)],
			waiting: [ref(dropped), ref(kept)],
			denied: [{ platform: "discord", native_id: "x" }],
		});
		socket.send({ action: "unsubscribe", meetings: [ref(dropped)] });
		await socket.waitFor("unsubscribed", (m) => m.type === "unsubscribed");

		// What a feed woken from hibernation reads back: the kept wait, from storage.
		const reloaded = await runInDurableObject(feedOf(user.id), async (_feed: LiveFeed, state) => {
			const subs = new FeedSubscriptions(state.storage, () => state.getWebSockets());
			await subs.ready();
			return [subs.waitingOn(refKey(ref(kept))).length, subs.waitingOn(refKey(ref(dropped))).length];
		});
		expect(reloaded).toEqual([1, 0]);

		const notWatched = await sendBot(headers, dropped);
		const watched = await sendBot(headers, kept);
		await eventually("the kept link's frame", () => (statusesOf(socket, watched.id).includes("requested") ? true : undefined));
		await socket.pingPong();
		expect(framesAbout(socket, notWatched.id)).toEqual([]);

		socket.close();
		await eventually("the closed socket's keys gone", async () => {
			const left = await runInDurableObject(feedOf(user.id), async (_feed: LiveFeed, state) => [
				...(await state.storage.list({ prefix: LIVE_FEED_STORAGE.keys.waitingPrefix })).keys(),
			]);
			return left.length === 0 ? true : undefined;
		});
	});

	it("counts waiting links toward the 200 a connection may hold", async () => {
		const { key } = await userWithKey();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		const codes = Array.from({ length: 201 }, () => meetCode());
		for (const batch of [codes.slice(0, 100), codes.slice(100, 200)]) {
			expect(await subscribe(socket, batch.map(ref))).toMatchObject({ waiting: batch.map(ref) });
		}
		const before = socket.messages.length;
		socket.send({ action: "subscribe", meetings: [ref(codes[200] ?? "")] });
		expect(await eventually("the refusal", () => socket.messages[before])).toEqual({
			type: "error",
			error: "invalid_subscribe_payload",
			details: ["At most 200 meetings per connection: this one watches 200, the request adds 1"],
		});
		socket.close();
	});
});
