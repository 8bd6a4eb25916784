/**
 * What a segment carries beyond its text, end to end: real Chromium in a sandbox meeting, its
 * captions, or its audio sent to a local OpenAI-compatible endpoint that answers
 * `verbose_json`, and the segments the room receives.
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useProviders, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf } from "./room.ts";

describe("segment fidelity", () => {
	const world = useWorld();
	const providers = useProviders();

	it("from the transcription endpoint carry the detected language, a confidence from avg_logprob and call-timed words", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Ada Lovelace", lines: ["The engine can weave algebraic patterns."] }] },
			// No language: the endpoint detects it.
			{ transcription: { url: providers.url, token: "transcription-token" }, language: null },
		);
		const confirmed = await world.room.until(bot.meetingId, (r) => segmentsOf(r).find((s) => s.completed && s.speaker === "Ada Lovelace"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);

		const heard = providers.transcriptions.filter((t) => t.authorization === "Bearer transcription-token");
		expect(heard.length).toBeGreaterThan(0);
		for (const h of heard) {
			expect(h.fields).toMatchObject({ response_format: "verbose_json" });
			expect(h.fields.language).toBeUndefined();
		}
		// The confirming pass is the one that answered this text with words.
		const answer = heard.findLast((h) => h.answer.text === confirmed.text && Array.isArray(h.answer.words))?.answer ?? {};
		const [first] = (answer.segments ?? []) as { avg_logprob: number }[];
		expect(answer.language).toBe("english");
		expect(confirmed.language).toBe("en");
		expect(confirmed.confidence).toBeCloseTo(Math.exp(first?.avg_logprob ?? Number.NaN), 6);
		const words = confirmed.words ?? [];
		expect(words.map((w) => w.word)).toEqual(confirmed.text.split(" "));
		for (const w of words) {
			expect(w.start).toBeGreaterThanOrEqual(confirmed.start);
			expect(w.end).toBeLessThanOrEqual(confirmed.end + 0.01);
			expect(w.end).toBeGreaterThan(w.start);
		}
	});

	it("from captions under auto-detect carry the language their text shows, and no confidence or words", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Ada Lovelace", lines: ["The engine will weave the numbers for us."] }] },
			{ language: null },
		);
		const confirmed = await world.room.until(bot.meetingId, (r) => segmentsOf(r).find((s) => s.completed && s.speaker === "Ada Lovelace"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(confirmed).toMatchObject({ language: "en", speaker_source: "caption" });
		// Captions come as text only: the platforms show no confidence or word timings.
		expect(confirmed.confidence).toBeUndefined();
		expect(confirmed.words).toBeUndefined();
	});

	it("from captions carry the bot's language, and a changed one from the next caption on", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{
				direct_join: true,
				speech_gap_ms: 3_000,
				participants: [
					{ name: "Marie Curie", lines: ["Radium glows in the dark."] },
					{ name: "Pierre Curie", lines: ["We measured it twice."] },
				],
			},
			{ language: "fr" },
		);
		await world.room.until(bot.meetingId, (r) => segmentsOf(r).some((s) => s.completed && s.speaker === "Marie Curie"));
		world.room.command(bot.meetingId, { action: "reconfigure", language: "de" });
		const done = await world.room.until(bot.meetingId, (r) => {
			const confirmed = segmentsOf(r).filter((s) => s.completed);
			return confirmed.some((s) => s.speaker === "Pierre Curie") ? confirmed : undefined;
		});
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		expect(done.find((s) => s.speaker === "Marie Curie")).toMatchObject({ language: "fr", speaker_source: "caption" });
		expect(done.find((s) => s.speaker === "Pierre Curie")).toMatchObject({ language: "de", speaker_source: "caption" });
	});
});
