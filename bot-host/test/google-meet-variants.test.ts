/**
 * The Meet bot on the sandbox's variants of the page, in real Chromium: the UI in German, French,
 * Spanish and Portuguese, the older page generation, every outcome screen in every language, and
 * the caption language set from the meeting's language.
 */
import { describe, expect, it } from "vitest";
import { UI_LANGUAGES } from "../../src/platforms/page-facts.ts";
import { ALICE, finished, holding, leaveNow, reported, statusNames, TWO_LINES, TWO_SPEAKERS, transcribed } from "./google-meet-checks.ts";
import { spawnBot, useWorld } from "./harness.ts";

describe("Google Meet variants", () => {
	const world = useWorld();

	it.each(["de", "fr", "es", "pt"] as const)(
		"in %s: asks through the lobby with mic and camera off, accepts the recording notice, reads both speakers' captions and leaves",
		async (language) => {
			const bot = await spawnBot(world, "google_meet", {
				ui_language: language,
				admit_after_ms: 500,
				interruptions: true,
				participants: TWO_SPEAKERS,
			});
			expect(await transcribed(world, bot, TWO_LINES)).toEqual(holding(TWO_LINES));
			expect(await leaveNow(world, bot)).toMatchObject({ status: "completed", completion_reason: "stopped" });
			expect(statusNames(world, bot)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
			const seen = world.sandbox.observed(bot.nativeId);
			expect(seen?.attendees[0]).toMatchObject({ mic_on_at_join: false, camera_on_at_join: false, phases: ["lobby", "in_call", "left"] });
			// Nobody asked for a caption language: the bot leaves Settings alone.
			expect(seen?.choices).toEqual({ caption_language: null, notes_consent: null });
		},
	);

	it("on the older page (2023-24 caption classes, no region role, B's chat field, 'Present now'): reads captions, chats and leaves", async () => {
		const bot = await spawnBot(world, "google_meet", { dom_version: "older", direct_join: true, participants: TWO_SPEAKERS });
		expect(await transcribed(world, bot, TWO_LINES)).toEqual(holding(TWO_LINES));
		world.room.command(bot.meetingId, { action: "chat_send", text: "Hello from the notetaker" });
		await world.room.until(bot.meetingId, (r) => r.some((m) => m.type === "event" && m.name === "chat.sent"));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		const seen = world.sandbox.observed(bot.nativeId);
		expect(seen?.chat_sent.map((c) => c.text)).toEqual(["Hello from the notetaker"]);
		expect(seen?.attendees[0]?.phases).toEqual(["in_call", "left"]);
	});

	it.each(UI_LANGUAGES)("in %s: a denial, a removal and the host ending the meeting each end the bot as they should", async (language) => {
		const [denied, removed, ended] = await Promise.all([
			spawnBot(world, "google_meet", { ui_language: language, deny: true, deny_after_ms: 500 }),
			spawnBot(world, "google_meet", { ui_language: language, direct_join: true, remove_after_ms: 1_500, participants: [{ name: ALICE }] }),
			spawnBot(world, "google_meet", { ui_language: language, direct_join: true, end_after_ms: 1_500, participants: [{ name: ALICE }] }),
		]);
		expect(await finished(world, denied)).toMatchObject({ status: "failed", completion_reason: "awaiting_admission_rejected" });
		expect(await finished(world, removed)).toMatchObject({
			status: "failed",
			completion_reason: "evicted",
			reason: "removed from the meeting",
		});
		expect(await finished(world, ended)).toMatchObject({
			completion_reason: "left_alone",
			completion_cause: "ended_by_host",
			reason: "the host ended the meeting",
		});
		expect(world.sandbox.observed(denied.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "denied"]);
		expect(world.sandbox.observed(removed.nativeId)?.attendees[0]?.phases).toEqual(["in_call", "removed"]);
		expect(world.sandbox.observed(ended.nativeId)?.attendees[0]?.phases).toEqual(["in_call", "ended"]);
	});

	it("sets a German meeting's caption language to German through Settings, so its captions read right", async () => {
		const line = "Guten Morgen, wir schauen uns heute die Zahlen für das Quartal an.";
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, spoken_language: "de", speech_start_ms: 2_000, participants: [{ name: ALICE, lines: [line] }] },
			{ language: "de" },
		);
		await reported(world, bot, "active");
		const segments = await transcribed(world, bot, [{ speaker: ALICE, text: line }]);
		expect(segments).toEqual(holding([{ speaker: ALICE, text: line }]));
		expect(segments.every((s) => s.language === "de")).toBe(true);
		expect(world.sandbox.observed(bot.nativeId)?.choices.caption_language).toBe("de-DE");
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
	});
});
