/**
 * The Teams join against the traps the sandbox page sets (docs/sandbox.md#teams-web), in real
 * Chromium: the launcher's other forms, a Join covered or enabled late, the audio/video prompt
 * that swallows the Join click (V #467), "we couldn't connect you", and the sign-in walls.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Scenario } from "../sandbox/scenario.ts";
import { type Spawned, spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("the Teams join, against the page's traps", () => {
	const world = useWorld();

	const statuses = (bot: Spawned) => statusesOf(world.room.received(bot.meetingId)).map((s) => s.status);

	/** Gets in without asking for help, having asked to join exactly once, with mic and camera off. */
	async function getsIn(scenario: z.input<typeof Scenario>) {
		const bot = await spawnBot(world, "teams", { admit_after_ms: 1_500, participants: [{ name: "Ana" }], ...scenario });
		await world.room.until(bot.meetingId, (r) => statusesOf(r).find((s) => s.status === "active" || s.status === "failed"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(statuses(bot)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
		const attendees = world.sandbox.observed(bot.nativeId)?.attendees ?? [];
		expect(attendees.map((a) => a.phases)).toEqual([["lobby", "in_call", "left"]]);
		expect(attendees[0]).toMatchObject({ name: bot.botName, mic_on_at_join: false, camera_on_at_join: false });
		return bot;
	}

	/** On both page generations: the older one's switches are `aria-checked`, today's native inputs. */
	const onBothPages = (scenario: z.input<typeof Scenario>) =>
		Promise.all([getsIn({ ...scenario, dom_version: "newer" }), getsIn({ ...scenario, dom_version: "older" })]);

	it("clicks Join now again when the audio/video prompt swallowed the click, at once or after a device check (V #467)", async () => {
		await Promise.all([onBothPages({ interruptions: true }), onBothPages({ traps: ["av_prompt_late"] })]);
	});

	it("waits for a Join now that enables late, and clicks one an overlay covers", async () => {
		await Promise.all([onBothPages({ traps: ["join_enabled_late"] }), onBothPages({ traps: ["join_overlay"] })]);
	});

	it("finds the launcher by its other labels (S: 'Join from browser', 'Join on this browser')", async () => {
		await getsIn({ traps: ["launcher_variant"] });
	});

	it("rejoins after 'we couldn't connect you' and fills the fresh pre-join form again (A retries)", async () => {
		const bot = await getsIn({ traps: ["couldnt_connect"] });
		expect(world.sandbox.observed(bot.nativeId)?.bot_names).toEqual([bot.botName]);
	});

	it("asks to join again after a dropped lobby without fighting the prompt: one request dropped, one admitted", async () => {
		const bot = await spawnBot(world, "teams", {
			interruptions: true,
			lobby_drop_after_ms: 600,
			admit_after_ms: 1_500,
			participants: [{ name: "Oli" }],
		});
		await world.room.until(bot.meetingId, (r) => statusesOf(r).find((s) => s.status === "active"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(statuses(bot)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees.map((a) => a.phases)).toEqual([
			["lobby", "left"],
			["lobby", "in_call", "left"],
		]);
	});

	it("names the sign-in walls: the org-policy page on Teams itself (A) and the consumer sign-in at login.live.com (V)", async () => {
		const orgPolicy = await spawnBot(world, "teams", { sign_in_required: true, traps: ["org_sign_in"] });
		const consumer = await spawnBot(world, "teams", { sign_in_required: true }, { linkFor: (id) => `https://teams.live.com/meet/${id}` });
		const asked = await Promise.all(
			[orgPolicy, consumer].map((bot) => world.room.until(bot.meetingId, (r) => statusesOf(r).find((s) => s.status === "needs_help"))),
		);
		expect(asked[0]).toMatchObject({ help: { kind: "sign_in_required" } });
		expect(asked[0]?.help?.page_text).toContain("Due to org policy, you need to sign in");
		expect(asked[1]).toMatchObject({ help: { kind: "sign_in_required" } });
		expect(asked[1]?.help?.page_text).toContain("Sign in");
		for (const bot of [orgPolicy, consumer]) world.room.command(bot.meetingId, { action: "leave" });
		for (const bot of [orgPolicy, consumer]) {
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ completion_reason: "stopped" });
			expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);
		}
	});
});
