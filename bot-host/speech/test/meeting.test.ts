/**
 * The speech service in a real meeting: a bot (real Chromium) in a sandbox Zoom call whose host
 * turned captions off, its meeting audio sent to the service as to any OpenAI-compatible endpoint,
 * and the segments the room receives: one confirmed segment per spoken line, nothing from the
 * silences between and after them. (The `builtin` engine streams the same audio to
 * /v1/audio/stream: builtin-engine.test.ts.)
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnBot, useWorld } from "../../test/harness.ts";
import { finalStatus, segmentsOf } from "../../test/room.ts";
import { type RunningService, startSpeechService } from "./service.ts";

let service: RunningService;
beforeAll(async () => {
	service = await startSpeechService();
});
afterAll(() => service?.stop());

describe("the speech service behind a bot in a meeting without captions", () => {
	const world = useWorld();

	it("gives one confirmed segment per spoken line and nothing for the silences", async () => {
		const bot = await spawnBot(
			world,
			"zoom",
			{
				direct_join: true,
				traps: ["captions_disabled"],
				speech_start_ms: 1_000,
				// Four seconds of silence between the two lines.
				speech_gap_ms: 4_000,
				participants: [
					{ name: "Alice Archer", lines: ["The quarterly review starts with the sales figures."] },
					{ name: "Bob Baker", lines: ["Thanks Alice, the support queue is much shorter now."] },
				],
			},
			{ transcription: { url: service.url, token: null }, language: "en" },
		);
		const confirmed = () => segmentsOf(world.room.received(bot.meetingId)).filter((s) => s.completed);
		await world.room.until(bot.meetingId, () => (confirmed().length >= 2 ? true : undefined));
		// The call goes on in silence: nothing more may come of it.
		await sleep(6_000);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);

		const segments = confirmed();
		expect(segments).toHaveLength(2);
		const [first, second] = segments as [(typeof segments)[number], (typeof segments)[number]];
		for (const s of segments) {
			expect(s.text.trim().length).toBeGreaterThan(0);
			expect(s.language).toBe("en");
			expect(s.end).toBeGreaterThan(s.start);
		}
		// The second line starts after the first ended and the silence between them passed.
		expect(second.start - first.end).toBeGreaterThan(3);
	});
});
