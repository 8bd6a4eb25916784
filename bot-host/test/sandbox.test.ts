/** The sandbox's control API over plain HTTP, as users and the end-to-end tests drive it. */
import { describe, expect, it } from "vitest";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("sandbox control API", () => {
	const world = useWorld();
	const control = (path: string, init?: RequestInit) => fetch(`${world.sandbox.controlUrl}${path}`, init);
	const post = (path: string, body: unknown) =>
		control(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

	it("sets, reads and forgets a scenario, and refuses an invalid one", async () => {
		const set = await post("/meetings/abc-defg-hij", { admit_after_ms: 50, participants: [{ name: "Mo", lines: ["Hi."] }] });
		expect(set.status).toBe(200);
		const read = await (await control("/meetings/abc-defg-hij")).json();
		expect(read.scenario).toMatchObject({ admit_after_ms: 50, participants: [{ name: "Mo", lines: ["Hi."], join_after_ms: 0 }] });
		expect((await (await control("/")).json()).meetings).toContain("abc-defg-hij");
		const invalid = await post("/meetings/abc-defg-hij", { admit_after_ms: -5 });
		expect(invalid.status).toBe(422);
		expect((await post("/meetings/abc-defg-hij/actions", { action: "explode" })).status).toBe(422);
		expect((await control("/meetings/abc-defg-hij", { method: "DELETE" })).status).toBe(200);
		expect((await (await control("/")).json()).meetings).not.toContain("abc-defg-hij");
		const fresh = await (await control("/meetings/abc-defg-hij/observed")).json();
		expect(fresh).toMatchObject({ bot_names: [], attendees: [], chat_sent: [] });
	});

	it.each(["google_meet", "zoom", "teams"] satisfies Platform[])(
		"treats a %s meeting id nobody configured as no meeting: the bot fails with the not-found reason",
		async (platform) => {
			// Zoom shows a link to no meeting as it shows one whose host has not started: the bot waits max_wait_for_host.
			const zoom = platform === "zoom";
			const bot = await spawnBot(
				world,
				platform,
				{},
				{ unconfigured: true, ...(zoom ? { automatic_leave: { max_wait_for_host: 1_000 } } : {}) },
			);
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({
				status: "failed",
				completion_reason: "join_failure",
				failure_stage: "joining",
				reason: expect.stringContaining(zoom ? "as it also does for a link to no meeting" : "meeting not found"),
			});
			expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(
				zoom ? ["joining", "joining", "failed"] : ["joining", "failed"],
			);
			// Looking at an unknown id does not make it a meeting.
			expect(await (await control(`/meetings/${bot.nativeId}`)).json()).toMatchObject({ configured: false, scenario: { not_found: true } });
			expect((await (await control("/")).json()).meetings).not.toContain(bot.nativeId);
		},
	);

	it("answers the control URL as printed (no trailing slash) and with one, with the same map of the sandbox", async () => {
		expect(world.sandbox.controlUrl).not.toMatch(/\/$/);
		const bare = await control("");
		const slashed = await control("/");
		expect([bare.status, slashed.status]).toEqual([200, 200]);
		const map = await bare.json();
		expect(map).toEqual(await slashed.json());
		expect(map.pages).toHaveLength(3);
		expect(Object.keys(map.control)).toContain("POST /__sandbox/meetings/<id>");
	});

	it("makes every id an open meeting only when told so", async () => {
		expect(await (await control("/settings")).json()).toEqual({ unconfigured_meetings: "not_found" });
		expect((await post("/settings", { unconfigured_meetings: "always" })).status).toBe(422);
		expect(await (await post("/settings", { unconfigured_meetings: "open" })).json()).toEqual({ unconfigured_meetings: "open" });
		try {
			const bot = await spawnBot(world, "zoom", {}, { unconfigured: true });
			await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ name: bot.botName, phase: "in_call" });
			world.room.command(bot.meetingId, { action: "leave" });
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		} finally {
			await post("/settings", { unconfigured_meetings: "not_found" });
		}
	});

	it("admits a waiting bot and then ends the meeting on command", async () => {
		const bot = await spawnBot(world, "teams", { lobby_forever: true, participants: [{ name: "Nia" }] });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "awaiting_admission"));
		expect((await post(`/meetings/${bot.nativeId}/actions`, { action: "admit" })).status).toBe(200);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await post(`/meetings/${bot.nativeId}/actions`, { action: "end" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "left_alone" });
		const observed = await (await control(`/meetings/${bot.nativeId}/observed`)).json();
		expect(observed.attendees[0].phases).toEqual(["lobby", "in_call", "ended"]);
		const wav = Buffer.from(await (await control(`/meetings/${bot.nativeId}/observed/mic.wav`)).arrayBuffer());
		expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
	});
});
