/**
 * Screen content and how it reaches the meeting (docs/api.md#interactive-bot-actions): the
 * answer of POST .../screen plans it from what the platform lets a guest bot do, and the bot's
 * `screen.sharing_*` events say what happened, `presented_as` carried through the room to /ws.
 */
import { describe, expect, it } from "vitest";
import { PLATFORMS } from "../../../src/platforms";
import { plannedPresentation } from "../../../src/platforms/share-facts";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { openSocket, SimulatedBot, spawnRequestFor } from "../meetings/bot-sim";
import { call, json, userWithKey } from "../support";

let nextNumber = Math.floor(Math.random() * 1_000_000);
/** A fresh link's id on each platform. */
const freshId = (platform: string) => (platform === "google_meet" ? meetCode() : String(8_100_000_000 + ++nextNumber));

async function activeBot(platform: string) {
	const { key, headers } = await userWithKey();
	const id = freshId(platform);
	const meeting = await json<{ id: number }>(await call("POST", "/bots", { headers, json: { platform, native_meeting_id: id } }));
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("active");
	return { key, headers, id, meeting, bot, base: `/bots/${platform}/${id}` };
}

describe("POST .../screen plans how the content reaches the meeting", () => {
	it.each(PLATFORMS)("%s: a screen share, beside the ack's own fields, for content and for a start alone", async (platform) => {
		const { headers, meeting, bot, base } = await activeBot(platform);
		const shown = await call("POST", `${base}/screen`, { headers, json: { type: "html", html: "<h1>Plan</h1>", start_share: false } });
		expect(shown.status).toBe(202);
		expect(await shown.json()).toEqual({ message: "Screen content command sent", meeting_id: meeting.id, presented_as: "screen_share" });
		const started = await call("POST", `${base}/screen`, { headers, json: { start_share: true } });
		expect(await started.json()).toEqual({ message: "Screen content command sent", meeting_id: meeting.id, presented_as: "screen_share" });
		const commands = await eventually("both commands", () => (bot.commands().length >= 2 ? bot.commands() : undefined));
		expect(commands.map((c) => (c.type === "command" ? c.act : null))).toEqual([
			{ action: "screen_show", content_type: "html", html: "<h1>Plan</h1>", start: false },
			{ action: "screen_start" },
		]);
		// Stopping plans nothing: its answer stays the plain ack.
		const stopped = await call("DELETE", `${base}/screen`, { headers });
		expect(await stopped.json()).toEqual({ message: "Screen stop command sent", meeting_id: meeting.id });
	});

	it("plans the camera for a platform that gives a guest no share control", () => {
		expect(plannedPresentation("camera_only")).toBe("camera");
		expect(plannedPresentation("host_permits")).toBe("screen_share");
		expect(plannedPresentation("guest_can_share")).toBe("screen_share");
	});
});

describe("screen.sharing_* on /ws say how the content was presented", () => {
	it("relays presented_as as the bot reported it: a screen share, then the camera fallback", async () => {
		const { key, id, meeting, bot } = await activeBot("teams");
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "teams", native_id: id }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");

		await bot.send({ type: "event", name: "screen.sharing_started", payload: { content_type: "html", presented_as: "screen_share" } });
		await bot.send({ type: "event", name: "screen.sharing_stopped", payload: { content_type: "html", presented_as: "screen_share" } });
		await bot.send({ type: "event", name: "screen.sharing_started", payload: { content_type: "image", presented_as: "camera" } });
		const frames = await eventually("three screen frames", () => {
			const seen = socket.messages.filter((m) => String(m.type).startsWith("screen."));
			return seen.length >= 3 ? seen : undefined;
		});
		const ref = { id: meeting.id, platform: "teams", native_id: id };
		expect(frames.map(({ ts: _ts, ...frame }) => frame)).toEqual([
			{ type: "screen.sharing_started", meeting: expect.objectContaining(ref), content_type: "html", presented_as: "screen_share" },
			{ type: "screen.sharing_stopped", meeting: expect.objectContaining(ref), content_type: "html", presented_as: "screen_share" },
			{ type: "screen.sharing_started", meeting: expect.objectContaining(ref), content_type: "image", presented_as: "camera" },
		]);
		socket.close();
	});
});
