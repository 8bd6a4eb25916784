/**
 * A bot that asks for help: stuck on a screen its driver does not know (the sandbox's
 * interstitial) or on a join screen whose join button moved (a changed layout), it reports
 * `needs_help` after the grace with the page's text and a screenshot uploaded to the room
 * first, keeps watching, and reports its live status again once the screen is recognised.
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, type Status, statusesOf } from "./room.ts";

/** JPEG files start with the SOI marker and an APPn segment. */
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);

describe("a bot that asks for help", () => {
	const world = useWorld({ helpGraceMs: 1_500 });
	const sandboxAction = (nativeId: string, action: string) =>
		fetch(`${world.sandbox.controlUrl}/meetings/${nativeId}/actions`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ action }),
		});
	const statusesIn = (meetingId: number) => statusesOf(world.room.received(meetingId)).map((s) => s.status);
	const reported = (meetingId: number, status: Status["status"], after = 0) =>
		world.room.until(meetingId, (received) =>
			statusesOf(received)
				.slice(after)
				.find((s) => s.status === status),
		);

	it("asks for help on an unknown screen, with its text and a JPEG, and joins once it is cleared", async () => {
		const bot = await spawnBot(world, "google_meet", { interstitial: true, participants: [{ name: "Uma" }] });
		const asked = await reported(bot.meetingId, "needs_help");
		// On the meeting page, before asking to join.
		expect(asked).toMatchObject({
			reason: "the page shows a screen the bot does not recognise",
			help: { kind: "unknown_screen" },
			join_step: "prejoin",
		});
		expect(asked.help?.page_text).toContain("Before you join");
		expect(asked.help?.page_text).toContain("review its meeting policy");
		const name = asked.help?.screenshot ?? "";
		const shot = world.room.screenshots(bot.meetingId).get(name);
		expect(shot?.contentType).toBe("image/jpeg");
		expect(shot?.bytes.subarray(0, 3)).toEqual(JPEG_START);
		// The bot never got to the join form while the screen was there.
		expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);

		expect((await sandboxAction(bot.nativeId, "clear_interstitial")).status).toBe(200);
		await reported(bot.meetingId, "active");
		expect(statusesIn(bot.meetingId)).toEqual(["joining", "needs_help", "joining", "awaiting_admission", "active"]);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "in_call", "left"]);
	});

	it("asks for help when the join button has moved (layout_changed), and joins once the layout is back", async () => {
		const bot = await spawnBot(world, "zoom", { layout_changed: true, passcode: "s3cretpass", participants: [{ name: "Vic" }] });
		const asked = await reported(bot.meetingId, "needs_help");
		expect(asked).toMatchObject({ help: { kind: "layout_changed" }, join_step: "prejoin" });
		expect(asked.reason).toMatch(/cannot find its join button/);
		expect(asked.help?.page_text).toContain("Join");
		expect(
			world.room
				.screenshots(bot.meetingId)
				.get(asked.help?.screenshot ?? "")
				?.bytes.subarray(0, 3),
		).toEqual(JPEG_START);
		expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);

		expect((await sandboxAction(bot.nativeId, "restore_layout")).status).toBe(200);
		await reported(bot.meetingId, "active");
		expect(statusesIn(bot.meetingId)).toEqual(["joining", "needs_help", "joining", "awaiting_admission", "active"]);
		// Each try typed the name afresh rather than after the last one's.
		expect(world.sandbox.observed(bot.nativeId)?.bot_names).toEqual([bot.botName]);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
	});

	it("asks for help on the platform's bot check (a captcha), and joins once it is passed", async () => {
		const bot = await spawnBot(world, "google_meet", { interstitial: true, interstitial_kind: "bot_check", direct_join: true });
		const asked = await reported(bot.meetingId, "needs_help");
		expect(asked).toMatchObject({ reason: "the platform asks for a captcha or a bot check", help: { kind: "captcha" } });
		expect(asked.help?.page_text).toContain("You can't join this video call");
		expect((await sandboxAction(bot.nativeId, "clear_interstitial")).status).toBe(200);
		await reported(bot.meetingId, "active");
		expect(statusesIn(bot.meetingId)).toEqual(["joining", "needs_help", "joining", "active"]);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
	});

	it("fails a denied join with its last steps, the page's text and a screenshot, and no secret", async () => {
		const passcode = "s3cretpass";
		// The link carries the passcode (?pwd=): neither it nor the query may reach a step.
		const bot = await spawnBot(world, "zoom", { deny: true, deny_after_ms: 500, passcode, participants: [{ name: "Wes" }] });
		const last = await world.room.until(bot.meetingId, finalStatus);
		expect(last).toMatchObject({ status: "failed", completion_reason: "awaiting_admission_rejected", join_step: "lobby" });
		const diagnostics = last.diagnostics;
		expect(diagnostics).toMatchObject({ page_state: "removed" });
		expect(diagnostics?.page_text).toContain("You have been removed");
		const steps = diagnostics?.steps.map((s) => s.step) ?? [];
		expect(steps).toEqual(
			expect.arrayContaining([
				`opening the meeting page https://app.zoom.us/wc/${bot.nativeId}/join`,
				"typed the bot's name",
				"clicked Join",
				"page now shows: lobby",
				"page now shows: removed",
			]),
		);
		expect(steps.at(-1)).toMatch(/^failed: the host denied the request to join/);
		expect(steps.indexOf("typed the bot's name")).toBeLessThan(steps.indexOf("page now shows: lobby"));
		const shot = world.room.screenshots(bot.meetingId).get(diagnostics?.screenshot ?? "");
		expect(shot?.bytes.subarray(0, 3)).toEqual(JPEG_START);
		expect(JSON.stringify(world.room.received(bot.meetingId))).not.toContain(passcode);
		expect(JSON.stringify(world.room.received(bot.meetingId))).not.toContain("pwd=");
	});

	it("still reports a failure's diagnostics when the room refuses the screenshot (screenshot: null)", async () => {
		world.room.screenshotRefusal = 503;
		try {
			const bot = await spawnBot(world, "teams", { not_found: true });
			const last = await world.room.until(bot.meetingId, finalStatus);
			expect(last).toMatchObject({
				status: "failed",
				completion_reason: "join_failure",
				reason: expect.stringContaining("meeting not found"),
				// The page opened and said so before the bot could ask to join.
				join_step: "prejoin",
			});
			expect(last.diagnostics).toMatchObject({ page_state: "not_found", screenshot: null });
			expect(last.diagnostics?.page_text).toContain("Looks like the meeting URL is incorrect");
			expect(world.room.screenshots(bot.meetingId).size).toBe(0);
		} finally {
			world.room.screenshotRefusal = null;
		}
	});
});

describe("a bot waiting for help past its join timeout", () => {
	const world = useWorld({ helpGraceMs: 1_000, joinTimeoutMs: 8_000 });

	it("does not time itself out of needs_help, and joins when the interstitial goes away by itself", async () => {
		const bot = await spawnBot(world, "teams", { interstitial: true, interstitial_ms: 14_000, participants: [{ name: "Xia" }] });
		const asked = await world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === "needs_help"));
		expect(asked.help).toMatchObject({ kind: "unknown_screen" });
		// Teams' own launcher is not there either: the interstitial is all the page shows.
		expect(asked.help?.page_text).not.toContain("Continue on this browser");
		await world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === "active"));
		expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual([
			"joining",
			"needs_help",
			"joining",
			"awaiting_admission",
			"active",
		]);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
	});
});
