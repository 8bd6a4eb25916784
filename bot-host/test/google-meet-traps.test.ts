/**
 * The Meet bot against the sandbox's traps on the way in and in the call, in real Chromium: each
 * is something the real page does that the maintained bots had to handle (traps.ts MEET_TRAPS).
 */
import { describe, expect, it } from "vitest";
import { ALICE, holding, joinedNames, leaveNow, statusNames, TWO_LINES, TWO_SPEAKERS, transcribed } from "./google-meet-checks.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, statusesOf } from "./room.ts";

describe("Google Meet traps", () => {
	// A join that goes nowhere fails in 12 s rather than 30.
	const world = useWorld({ joinTimeoutMs: 12_000 });

	it("reads captions with their speakers when every caption class has been renamed (rotated_caption_classes)", async () => {
		const bot = await spawnBot(world, "google_meet", { direct_join: true, traps: ["rotated_caption_classes"], participants: TWO_SPEAKERS });
		const segments = await transcribed(world, bot, TWO_LINES);
		expect(segments).toEqual(holding(TWO_LINES));
		expect(segments.every((s) => s.speaker_source === "caption")).toBe(true);
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
	});

	it("does not take the effects button's span on the pre-join screen for a call, nor its icon for a person (effects_phantom_span)", async () => {
		const bot = await spawnBot(world, "google_meet", {
			admit_after_ms: 800,
			traps: ["effects_phantom_span"],
			participants: [{ name: ALICE }],
		});
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "participant"));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		expect(statusNames(world, bot)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "in_call", "left"]);
		expect(joinedNames(world, bot)).toEqual([ALICE]);
	});

	it.each(["lobby_host_brings_you_in", "lobby_waiting_room", "lobby_waiting_for_host"])(
		"knows the lobby when it says it another way (%s), and gives up on it after the lobby timeout",
		async (trap) => {
			const bot = await spawnBot(
				world,
				"google_meet",
				{ lobby_forever: true, traps: [trap] },
				{ automatic_leave: { max_wait_for_admission: 2_000 } },
			);
			const last = await world.room.until(bot.meetingId, finalStatus);
			expect(statusNames(world, bot)).toEqual(["joining", "awaiting_admission", "failed"]);
			expect(last).toMatchObject({ completion_reason: "awaiting_admission_timeout", diagnostics: { page_state: "lobby" } });
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "left"]);
		},
	);

	it.each([
		["join_enabled_late", "Join stays disabled for a while after the name is typed"],
		["overlay_over_join", "a layer lies over Join and takes the pointer's clicks"],
		["slow_device_toggles", "the mic and camera toggles ignore clicks while the devices start"],
	])("gets in with mic and camera off when %s (%s)", async (trap) => {
		const bot = await spawnBot(world, "google_meet", { admit_after_ms: 300, traps: [trap], participants: [{ name: ALICE }] });
		const outcome = await world.room.until(bot.meetingId, (r) =>
			statusesOf(r).find((s) => ["active", "completed", "failed"].includes(s.status)),
		);
		// On failure the whole status shows, with the bot's last steps.
		expect(outcome).toMatchObject({ status: "active" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({
			mic_on_at_join: false,
			camera_on_at_join: false,
			phases: ["lobby", "in_call"],
		});
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
	});

	it("turns captions on, transcribes and leaves although the toolbar hides until the pointer moves (auto_hiding_toolbar)", async () => {
		const bot = await spawnBot(world, "google_meet", {
			admit_after_ms: 2_000,
			traps: ["auto_hiding_toolbar"],
			speech_start_ms: 1_000,
			participants: TWO_SPEAKERS,
		});
		expect(await transcribed(world, bot, TWO_LINES)).toEqual(holding(TWO_LINES));
		// The toolbar hides again while the bot only listens; leaving still finds "Leave call".
		await new Promise((r) => setTimeout(r, 2_000));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]).toMatchObject({ left: true, phases: ["lobby", "in_call", "left"] });
	});
});
