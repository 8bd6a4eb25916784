/**
 * Content posted to the bot's screen reaches the meeting as the platform's own screen share,
 * on every platform and in both page generations the sandbox knows, while the camera keeps the
 * avatar; where the host lets no participant share, it goes out on the camera instead. Each
 * `screen.sharing_*` event says which was used.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

/** A plain rectangle of one colour; 16:9, so shown whole on a 16:9 canvas it fills the frame. */
const svg = (fill: string) =>
	Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" fill="${fill}"/></svg>`);
const RED_AVATAR = svg("#ff0000").toString("base64");
const BLUE_HTML = '<body style="margin:0;background:#0000ff"><h1 style="color:#0000ff">Q3 plan</h1></body>';

type Rgb = readonly number[] | null | undefined;
const isRed = (c: Rgb) => c != null && c[0]! > 200 && c[1]! < 60 && c[2]! < 60;
const isBlue = (c: Rgb) => c != null && c[2]! > 180 && c[0]! < 80 && c[1]! < 80;

describe("shared content as a real screen share", () => {
	const world = useWorld();
	// `image` content is downloaded by the bot: a local server plays the public site.
	const images = http.createServer((_req, res) => res.writeHead(200, { "content-type": "image/svg+xml" }).end(svg("#0000ff")));
	let imageUrl: string;
	beforeAll(async () => {
		await new Promise<void>((resolve) => images.listen(0, "127.0.0.1", () => resolve()));
		imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/slide.svg`;
	});
	afterAll(async () => {
		images.closeAllConnections();
		await new Promise<void>((resolve) => images.close(() => resolve()));
	});

	/** A bot in the call with a red avatar on its camera. */
	async function botWithAvatar(platform: Platform, scenario: Record<string, unknown>) {
		const bot = await spawnBot(world, platform, { direct_join: true, participants: [{ name: "Ines" }], ...scenario });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const seen = () => world.sandbox.observed(bot.nativeId);
		const events = (name: string) =>
			world.room.received(bot.meetingId).flatMap((m) => (m.type === "event" && m.name === name ? [m.payload] : []));
		world.room.command(bot.meetingId, { action: "avatar_set", image_base64: RED_AVATAR });
		await until("the red avatar on camera", () => isRed(seen()?.camera.last_color));
		return { bot, seen, events };
	}

	/** What the bots said about presenting, to show with a failed expectation. */
	const presentingLog = () => world.logs.filter((line) => line.includes("present")).join("\n");

	const cases: [Platform, "newer" | "older", "html" | "image"][] = [
		["google_meet", "newer", "html"],
		["google_meet", "older", "image"],
		["zoom", "newer", "html"],
		["zoom", "older", "image"],
		["teams", "newer", "html"],
		["teams", "older", "image"],
	];

	it.each(cases)("%s (%s page): %s content is presented as a screen share, the camera keeps the avatar", async (platform, dom, kind) => {
		const { bot, seen, events } = await botWithAvatar(platform, { dom_version: dom });
		world.room.command(
			bot.meetingId,
			kind === "html"
				? { action: "screen_show", content_type: "html", html: BLUE_HTML }
				: { action: "screen_show", content_type: "image", url: imageUrl },
		);
		await world.room.until(bot.meetingId, () => events("screen.sharing_started").length === 1);
		expect(events("screen.sharing_started"), presentingLog()).toEqual([{ content_type: kind, presented_as: "screen_share" }]);
		await until("the blue content in the meeting's screen share", () => isBlue(seen()?.screen.last_color));
		expect(seen()?.screen).toMatchObject({ presenting: true, shares: 1 });
		// The camera goes on showing the avatar: two more of its frames arrive while the share runs.
		const framesThen = seen()?.camera.frames ?? 0;
		await until("two more camera frames", () => (seen()?.camera.frames ?? 0) >= framesThen + 2);
		expect(isRed(seen()?.camera.last_color)).toBe(true);

		world.room.command(bot.meetingId, { action: "screen_stop" });
		await world.room.until(bot.meetingId, () => events("screen.sharing_stopped").length === 1);
		expect(events("screen.sharing_stopped")).toEqual([{ content_type: kind, presented_as: "screen_share" }]);
		await until("the meeting sees the share end", () => seen()?.screen.presenting === false);
		expect(seen()?.screen.shares).toBe(1);
		expect(isRed(seen()?.camera.last_color)).toBe(true);

		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ completion_reason: "stopped" });
	});

	// How each page says no, read from the page at once rather than waited out.
	const refusals: [Platform, string][] = [
		["google_meet", "presenting: the share control is disabled"],
		["zoom", "presenting: the platform refused the share (host setting)"],
		["teams", "presenting: no share control on the page"],
	];

	it.each(refusals)(
		"%s with participant sharing disabled by the host: the content goes on the camera, and the events say so",
		async (platform, refusal) => {
			const { bot, seen, events } = await botWithAvatar(platform, { host_disabled_screen_share: true });
			const logsFrom = world.logs.length;
			world.room.command(bot.meetingId, { action: "screen_show", content_type: "image", url: imageUrl });
			await world.room.until(bot.meetingId, () => events("screen.sharing_started").length === 1);
			expect(events("screen.sharing_started")).toEqual([{ content_type: "image", presented_as: "camera" }]);
			expect(world.logs.slice(logsFrom).filter((line) => line.startsWith("presenting:"))).toEqual([refusal]);
			await until("the blue content on camera", () => isBlue(seen()?.camera.last_color));
			expect(seen()?.screen).toMatchObject({ presenting: false, shares: 0, frames: 0 });

			world.room.command(bot.meetingId, { action: "screen_stop" });
			await world.room.until(bot.meetingId, () => events("screen.sharing_stopped").length === 1);
			expect(events("screen.sharing_stopped")).toEqual([{ content_type: "image", presented_as: "camera" }]);
			await until("the red avatar back on camera", () => isRed(seen()?.camera.last_color));

			world.room.command(bot.meetingId, { action: "leave" });
			await world.room.until(bot.meetingId, finalStatus);
		},
	);
});
