/**
 * What participants show and write on a Meet page, in real Chromium: tiles that are not people,
 * the bot's own second view, the chat's pin buttons, and outcome sentences in names, captions and
 * chat in every UI language, which must never end the bot.
 */
import { describe, expect, it } from "vitest";
import { UI_LANGUAGES } from "../../src/platforms/page-facts.ts";
import { meetUi } from "../sandbox/pages/google-meet-texts.ts";
import { ALICE, finished, holding, joinedNames, leaveNow, statusNames, transcribed } from "./google-meet-checks.ts";
import { spawnBot, useWorld } from "./harness.ts";

describe("Google Meet participants and their words", () => {
	const world = useWorld();

	it("counts only people: not junk tiles, not its own second view named 'You' (junk_tiles, self_view_named_you), and leaves once alone", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, traps: ["junk_tiles", "self_view_named_you"], participants: [{ name: ALICE, leave_after_ms: 2_500 }] },
			{ automatic_leave: { max_time_left_alone: 1_000 } },
		);
		expect(await finished(world, bot)).toMatchObject({ completion_reason: "left_alone" });
		const events = world.room
			.received(bot.meetingId)
			.flatMap((m) => (m.type === "participant" ? [`${m.event}:${m.participant.name}`] : []));
		expect(events).toEqual([`join:${ALICE}`, `leave:${ALICE}`]);
	});

	it("reads chat messages, not the pin buttons that carry the same message id (chat_pin_button)", async () => {
		const bot = await spawnBot(world, "google_meet", {
			direct_join: true,
			traps: ["chat_pin_button"],
			participants: [{ name: ALICE }],
			chat: [
				{ sender: ALICE, text: "Agenda is in the doc", after_ms: 200 },
				{ sender: ALICE, text: "Second point", after_ms: 400 },
			],
		});
		await world.room.until(bot.meetingId, (r) => r.filter((m) => m.type === "chat").length >= 2);
		await new Promise((r) => setTimeout(r, 1_000));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
		const chat = world.room.received(bot.meetingId).flatMap((m) => (m.type === "chat" ? [[m.message.sender, m.message.text]] : []));
		expect(chat).toEqual([
			[ALICE, "Agenda is in the doc"],
			[ALICE, "Second point"],
		]);
	});

	it.each(UI_LANGUAGES)(
		"in %s: stays and transcribes when participants are named, say and type the page's outcome sentences",
		async (language) => {
			const ui = meetUi(language);
			// Names of at most 100 characters, as the scenario allows.
			const named = (text: string) => text.slice(0, 100);
			const speaker = named(ui.left);
			const bot = await spawnBot(world, "google_meet", {
				ui_language: language,
				direct_join: true,
				speech_gap_ms: 200,
				participants: [
					{ name: speaker, lines: [ui.removed, ui.ended] },
					{ name: named(ui.ended), join_after_ms: 100 },
				],
				chat: [
					{ sender: named(ui.denied), text: ui.notFound, after_ms: 100 },
					{ sender: named(ui.cantJoin), text: `${ui.left}. ${ui.asking}`, after_ms: 200 },
				],
			});
			const said = [
				{ speaker, text: ui.removed },
				{ speaker, text: ui.ended },
			];
			expect(await transcribed(world, bot, said)).toEqual(holding(said));
			await world.room.until(bot.meetingId, (r) => r.filter((m) => m.type === "chat").length >= 2);
			expect(await leaveNow(world, bot)).toMatchObject({
				status: "completed",
				completion_reason: "stopped",
				reason: "asked to leave (leave command)",
			});
			expect(statusNames(world, bot)).toEqual(["joining", "active", "completed"]);
			expect(joinedNames(world, bot)).toEqual(expect.arrayContaining([speaker, named(ui.ended)]));
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["in_call", "left"]);
		},
	);

	it("keeps transcribing a line that says the meeting has ended", async () => {
		const bot = await spawnBot(world, "google_meet", {
			direct_join: true,
			participants: [{ name: ALICE, lines: ["Call ended, you left the meeting, check your meeting code.", "Still here."] }],
		});
		const said = [
			{ speaker: ALICE, text: "Call ended, you left the meeting, check your meeting code." },
			{ speaker: ALICE, text: "Still here." },
		];
		expect(await transcribed(world, bot, said)).toEqual(holding(said));
		expect(await leaveNow(world, bot)).toMatchObject({ completion_reason: "stopped" });
	});
});
