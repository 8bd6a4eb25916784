/**
 * A bot that says again where it is, with words (a Zoom bot waiting for the host to start the
 * meeting: still `joining`): the room tells it as a note on /ws and as a `meeting.status_change`
 * webhook, changing no status; said again without words, it is not news.
 */
import { describe, expect, it } from "vitest";
import type { MeetingStatusFrame } from "../../../src/live/frames";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";
import { openSocket, SimulatedBot, spawnRequestFor } from "./bot-sim";
import { getMeeting, sendBot } from "./helpers";

const WAITING = "waiting for the host to start the meeting (re-checking every 15 s, up to 10 min)";

describe("a bot's words about where it is", () => {
	it("reach watchers and webhooks as a note that keeps the status", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		const meeting = await sendBot(headers, code);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("joining");
		await bot.status("joining", { reason: WAITING });
		await bot.status("joining");
		await bot.status("active");

		const frames = () =>
			(socket.messages.filter((m) => m.type === "meeting.status") as unknown as MeetingStatusFrame[]).map((f) => f.payload);
		await eventually("the active frame", () => (frames().some((p) => p.status === "active") ? true : undefined));
		expect(frames().map((p) => [p.status, p.data?.reason ?? null])).toEqual([
			["joining", null],
			["joining", WAITING],
			["active", null],
		]);
		socket.close();

		const changes = await eventually("four status changes delivered", async () => {
			const got = (await received(hook.path)).map((r) => JSON.parse(r.body) as WebhookEnvelope);
			const steps = got.filter((e) => e.event_type === "meeting.status_change").map((e) => e.data.status_change);
			return steps.length >= 4 ? steps : undefined;
		});
		expect(changes.map((c) => [c?.from, c?.to, c?.reason ?? null])).toEqual([
			[null, "requested", null],
			["requested", "joining", null],
			["joining", "joining", WAITING],
			["joining", "active", null],
		]);
		expect((await getMeeting(headers, meeting.id)).status).toBe("active");
	});
});
