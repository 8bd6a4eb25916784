/**
 * Silence that is not silence, in real Chromium against the sandbox: participants talk (real
 * audio) while the platform shows its captions where no driver looks (scenario
 * `captions_unreadable`). The bot hears them through its level meter, asks for help
 * (`captions_unreadable`) with the page's text and a screenshot, stays in the call, and reports
 * `active` again once captions can be read (the control API's `restore_captions`). A meeting
 * where nobody talks, or whose captions are read, asks nothing.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf, statusesOf } from "./room.ts";

/** JPEG files start with the SOI marker and an APPn segment. */
const JPEG_START = Buffer.from([0xff, 0xd8, 0xff]);
/** Short limits, so a test meeting reaches them in seconds (the defaults are 10 s heard, 30 s quiet). */
const LIMITS = { heardMs: 2_000, quietMs: 5_000, windowMs: 30_000 };

const LINES = [
	"Good morning everyone and thanks for joining.",
	"Let us start with the quarterly numbers.",
	"Revenue grew in every region this quarter.",
	"The team in Lisbon closed two large deals.",
	"Next we look at the hiring plan for spring.",
	"We want four engineers and one designer.",
	"Questions about the budget go to Maria.",
	"The launch date stays at the end of May.",
	"Please send your comments by Friday.",
	"That is all from me for the numbers today.",
	"Any other business before we close the call?",
	"Thank you all and have a good week.",
];

describe("people heard while no caption can be read", () => {
	const world = useWorld({ captionWatch: LIMITS });
	const statusesIn = (meetingId: number) => statusesOf(world.room.received(meetingId)).map((s) => s.status);
	const restoreCaptions = (nativeId: string) =>
		fetch(`${world.sandbox.controlUrl}/meetings/${nativeId}/actions`, {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ action: "restore_captions" }),
		});

	it.each<Platform>(["google_meet", "zoom", "teams"])(
		"%s: asks for help with a screenshot, stays in the call and recording, and is active again once captions are read",
		async (platform) => {
			const bot = await spawnBot(
				world,
				platform,
				{ captions_unreadable: true, participants: [{ name: "Ana", lines: LINES }], speech_gap_ms: 300 },
				{ recording_enabled: true },
			);
			const asked = await world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === "needs_help"));
			expect(asked.help).toMatchObject({ kind: "captions_unreadable" });
			expect(asked.reason).toMatch(/^people have been heard talking for \d+ s, but the bot has read no caption for \d+ s: /);
			expect(asked.reason).toContain("the bot stays in the call and keeps recording");
			// The captions are on the screen, only where no driver looks.
			expect(asked.help?.page_text).toContain("Ana: ");
			const shot = world.room.screenshots(bot.meetingId).get(asked.help?.screenshot ?? "");
			expect(shot?.contentType).toBe("image/jpeg");
			expect(shot?.bytes.subarray(0, 3)).toEqual(JPEG_START);
			expect(segmentsOf(world.room.received(bot.meetingId))).toEqual([]);
			// Still in the call, still recording, while it asks.
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phase).toBe("in_call");
			expect(bot.session.currentStage).toBe("active");
			expect(bot.session.recordingPath).not.toBeNull();

			expect((await restoreCaptions(bot.nativeId)).status).toBe(200);
			const back = await world.room.until(bot.meetingId, (received) =>
				statusesOf(received)
					.slice(3)
					.find((s) => s.status === "active"),
			);
			expect(back.reason).toBe("a caption was read again: the transcript goes on");
			const segment = await world.room.until(bot.meetingId, (received) => segmentsOf(received).find((s) => s.completed));
			expect(LINES.map((l) => l.toLowerCase())).toContain(segment.text.toLowerCase());
			expect(statusesIn(bot.meetingId)).toEqual(["joining", "awaiting_admission", "active", "needs_help", "active"]);

			world.room.command(bot.meetingId, { action: "leave" });
			expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
			// One stay in the call from admission to the leave command.
			expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phases).toEqual(["lobby", "in_call", "left"]);
			// The page showed captions all along: those the bot could not read as well as those it did.
			const shown = world.sandbox.observed(bot.nativeId)?.captions_shown ?? [];
			expect(shown.find((c) => c.text === LINES[0])).toBeDefined();
		},
	);

	it("asks nothing when nobody talks, though no caption can be read", async () => {
		const bot = await spawnBot(world, "google_meet", { captions_unreadable: true, participants: [{ name: "Ben" }] });
		await world.room.until(bot.meetingId, (received) => statusesOf(received).find((s) => s.status === "active"));
		await sleep(LIMITS.quietMs * 3);
		expect(world.sandbox.observed(bot.nativeId)?.attendees[0]?.phase).toBe("in_call");
		expect(statusesIn(bot.meetingId)).toEqual(["joining", "awaiting_admission", "active"]);
		world.room.command(bot.meetingId, { action: "leave" });
		expect(await world.room.until(bot.meetingId, finalStatus)).toMatchObject({ status: "completed", completion_reason: "stopped" });
	});

	it("asks nothing while people talk and their captions are read", async () => {
		const lines = LINES.slice(0, 5);
		const bot = await spawnBot(world, "google_meet", { participants: [{ name: "Cleo", lines }], speech_gap_ms: 300 });
		// Every line read and settled, then a quiet spell as long as the rule's.
		await world.room.until(bot.meetingId, (received) => segmentsOf(received).filter((s) => s.completed).length >= lines.length);
		await sleep(LIMITS.quietMs + 1_000);
		expect(statusesIn(bot.meetingId)).toEqual(["joining", "awaiting_admission", "active"]);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
	});
});
