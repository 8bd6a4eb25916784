/**
 * Meet screens the peers name that end a join or need a person, in real Chromium: a denial shown
 * as "You left the meeting", the newer not-found texts, Google refusing the browser, and Gemini's
 * consent prompt, which the bot must never answer.
 */
import { describe, expect, it } from "vitest";
import { ALICE, ALICE_LINE, finished, holding, leaveNow, reported, statusNames, transcribed } from "./google-meet-checks.ts";
import { spawnBot, useWorld } from "./harness.ts";

describe("Google Meet screens", () => {
	const world = useWorld({ helpGraceMs: 1_500 });

	it("reads 'You left the meeting' while asking to join as a denial (denied_as_left)", async () => {
		const bot = await spawnBot(world, "google_meet", { deny: true, deny_after_ms: 500, traps: ["denied_as_left"] });
		expect(await finished(world, bot)).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_rejected",
			reason: "the host denied the request to join",
		});
		expect(statusNames(world, bot)).toEqual(["joining", "awaiting_admission", "failed"]);
	});

	it.each(["not_found_expired", "not_found_code_doesnt_work"])("fails as meeting not found on %s", async (trap) => {
		const bot = await spawnBot(world, "google_meet", { not_found: true, traps: [trap] });
		expect(await finished(world, bot)).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			reason: "meeting not found (invalid link, code or passcode)",
		});
		expect(statusNames(world, bot)).toEqual(["joining", "failed"]);
	});

	it("asks for help when Google answers Ask to join with 'There is a problem connecting to this video call' (problem_connecting)", async () => {
		const bot = await spawnBot(world, "google_meet", { traps: ["problem_connecting"] });
		const asked = await reported(world, bot, "needs_help");
		expect(asked).toMatchObject({ reason: "the platform asks for a captcha or a bot check", help: { kind: "captcha" } });
		expect(asked.help?.page_text).toContain("There is a problem connecting to this video call");
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		expect(world.sandbox.observed(bot.nativeId)?.attendees).toEqual([]);
	});

	it("never answers Gemini's 'take notes for me' prompt: asks for help while it shows, then transcribes (gemini_consent)", async () => {
		const bot = await spawnBot(world, "google_meet", {
			admit_after_ms: 300,
			traps: ["gemini_consent"],
			speech_start_ms: 4_500,
			participants: [{ name: ALICE, lines: [ALICE_LINE] }],
		});
		const asked = await reported(world, bot, "needs_help");
		expect(asked).toMatchObject({ help: { kind: "unknown_screen" } });
		expect(asked.help?.page_text).toContain("Take notes for me?");
		const said = [{ speaker: ALICE, text: ALICE_LINE }];
		expect(await transcribed(world, bot, said)).toEqual(holding(said));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		expect(statusNames(world, bot)).toEqual(["joining", "awaiting_admission", "needs_help", "active", "completed"]);
		// Someone else answered it: the bot pressed neither button.
		expect(world.sandbox.observed(bot.nativeId)?.choices.notes_consent).toBeNull();
	});
});
