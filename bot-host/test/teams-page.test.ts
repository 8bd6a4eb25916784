/**
 * The Teams driver against the sandbox page in each UI language and page generation, in real
 * Chromium: the launcher, the localized pre-join and lobby, captions read with their speakers,
 * chat both ways, and every outcome screen ending the bot as it should; while outcome sentences
 * said, typed or worn as names by participants change nothing.
 */
import { describe, expect, it } from "vitest";
import type { UiLanguage } from "../../src/platforms/page-facts.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

const PASSCODE = "Tm9pass";
const LINES: Record<UiLanguage, [string, string]> = {
	en: ["Good morning everyone, the numbers look great.", "Thanks, let us review the plan."],
	de: ["Guten Morgen zusammen, die Zahlen sehen gut aus.", "Danke, lass uns den Plan durchgehen."],
	fr: ["Bonjour à tous, les chiffres sont très bons.", "Merci, revoyons le plan ensemble."],
	es: ["Buenos días a todos, las cifras se ven muy bien.", "Gracias, repasemos el plan juntos."],
	pt: ["Bom dia a todos, os números estão ótimos.", "Obrigado, vamos revisar o plano."],
};
const ALICE = "Alice Archer";
const BOB = "Bob Baker";

describe("the Teams driver on the sandbox page, in each language and page generation", () => {
	const world = useWorld();

	/** Joins, waits in the lobby, reads both speakers' captions, chats both ways, leaves. */
	async function attendWholeMeeting(ui_language: UiLanguage, dom_version: "newer" | "older") {
		const [aliceLine, bobLine] = LINES[ui_language];
		const bot = await spawnBot(world, "teams", {
			ui_language,
			dom_version,
			admit_after_ms: 700,
			interruptions: true,
			passcode: PASSCODE,
			participants: [
				{ name: ALICE, lines: [aliceLine] },
				{ name: BOB, lines: [bobLine] },
			],
			chat: [{ sender: ALICE, text: `${ui_language}: agenda in the doc`, after_ms: 200 }],
		});
		const confirmed = await world.room.until(bot.meetingId, (received) => {
			const done = segmentsOf(received).filter((s) => s.completed);
			return done.some((s) => s.speaker === ALICE) && done.some((s) => s.speaker === BOB) ? done : undefined;
		});
		world.room.command(bot.meetingId, { action: "chat_send", text: "Hello from the notetaker" });
		await world.room.until(bot.meetingId, (r) => r.find((m) => m.type === "chat" && m.message.text === "Hello from the notetaker"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		const received = world.room.received(bot.meetingId);
		expect(statusesOf(received).map((s) => s.status)).toEqual(["joining", "awaiting_admission", "active", "completed"]);
		expect(confirmed.find((s) => s.speaker === ALICE)).toMatchObject({ text: aliceLine, speaker_source: "caption" });
		expect(confirmed.find((s) => s.speaker === BOB)).toMatchObject({ text: bobLine, speaker_source: "caption" });
		expect(received).toContainEqual(
			expect.objectContaining({
				type: "chat",
				message: expect.objectContaining({ sender: ALICE, text: `${ui_language}: agenda in the doc` }),
			}),
		);
		const seen = world.sandbox.observed(bot.nativeId);
		expect(seen?.attendees[0]).toMatchObject({ mic_on_at_join: false, camera_on_at_join: false, passcode_ok: true, left: true });
		expect(seen?.attendees[0]?.phases).toEqual(["lobby", "in_call", "left"]);
		expect(seen?.chat_sent.map((c) => c.text)).toEqual(["Hello from the notetaker"]);
	}

	it.each(["de", "fr", "es", "pt"] satisfies UiLanguage[])(
		"joins, is admitted, reads captions and chat, and leaves in a %s page",
		(language) => attendWholeMeeting(language, "newer"),
	);

	it("does the same on the older page: aria-checked switches, B's lobby text, chat-item captions, the placeholder chat box", () =>
		attendWholeMeeting("en", "older"));

	it("stays in the call and transcribes on when participants say, type or are named outcome sentences", async () => {
		const said: [string, string, string] = [
			"You've been removed from this meeting. Sie wurden entfernt.",
			"Sorry, but you were denied access to the meeting. Someone will let you in soon.",
			"La réunion est terminée, we couldn't connect you.",
		];
		const typed = [
			"The meeting has ended",
			"Looks like the meeting URL is incorrect",
			"Due to org policy, you need to sign in or use Teams on the web to join this meeting",
			"Verify you're a real person",
			"Call ended. Você foi removido. La reunión ha finalizado.",
		];
		const bot = await spawnBot(
			world,
			"teams",
			{
				direct_join: true,
				speech_gap_ms: 200,
				participants: [
					{ name: "The meeting has ended", lines: [said[0], said[2]] },
					{ name: "Removed from the meeting", lines: [said[1]] },
				],
				chat: typed.map((text, i) => ({ sender: "Sorry, but you were denied access to the meeting", text, after_ms: 300 + i * 100 })),
			},
			{ automatic_leave: { max_time_left_alone: 60_000 } },
		);
		const heard = await world.room.until(bot.meetingId, (received) => {
			const done = segmentsOf(received).filter((s) => s.completed);
			return said.every((line) => done.some((s) => s.text === line)) ? done : undefined;
		});
		expect(heard.find((s) => s.text === said[1])?.speaker).toBe("Removed from the meeting");
		const chat = await world.room.until(bot.meetingId, (received) => {
			const lines = received.flatMap((m) => (m.type === "chat" ? [m.message.text] : []));
			return lines.length >= typed.length ? lines : undefined;
		});
		expect(chat).toEqual(typed);
		expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).toEqual(["joining", "active"]);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
		const joined = world.room
			.received(bot.meetingId)
			.flatMap((m) => (m.type === "participant" && m.event === "join" ? [m.participant.name] : []));
		expect(joined.sort()).toEqual(["Removed from the meeting", "The meeting has ended"]);
	});

	it.each(["en", "de", "fr", "es", "pt"] satisfies UiLanguage[])(
		"ends the bot on each outcome screen of a %s page",
		async (ui_language) => {
			const outcomes = [
				{
					scenario: { deny: true, deny_after_ms: 2_000 },
					ending: { completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
				},
				{
					scenario: { direct_join: true, remove_after_ms: 3_000 },
					ending: { completion_reason: "evicted", reason: "removed from the meeting" },
				},
				{
					scenario: { direct_join: true, end_after_ms: 3_000 },
					ending: { completion_reason: "left_alone", completion_cause: "ended_by_host", reason: "the host ended the meeting" },
				},
				{
					scenario: { not_found: true },
					ending: { completion_reason: "join_failure", reason: "meeting not found (invalid link, code or passcode)" },
				},
			];
			const bots = await Promise.all(
				outcomes.map(({ scenario }) => spawnBot(world, "teams", { ui_language, participants: [{ name: "Ana" }], ...scenario })),
			);
			const endings = await Promise.all(bots.map((bot) => world.room.until(bot.meetingId, finalStatus)));
			expect(endings).toMatchObject(outcomes.map(({ ending }) => ending));
			for (const bot of bots) expect(statusesOf(world.room.received(bot.meetingId)).map((s) => s.status)).not.toContain("needs_help");
		},
	);
});
