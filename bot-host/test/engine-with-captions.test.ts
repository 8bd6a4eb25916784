/**
 * Captions and an engine together, end to end: real Chromium in a sandbox Meet meeting that shows
 * captions, its audio sent to a local OpenAI-compatible endpoint, and what the room keeps of the
 * segments the bot sends (a draft replaced under its id, a confirmation never by a draft).
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useProviders, useWorld } from "./harness.ts";
import { finalStatus, type Segment, segmentsOf } from "./room.ts";

/** What the room keeps of what was sent, in the order each id first came. */
function kept(sent: Segment[]): Segment[] {
	const rows = new Map<string, Segment>();
	for (const s of sent) {
		if (rows.get(s.segment_id)?.completed && !s.completed) continue;
		rows.set(s.segment_id, s);
	}
	return [...rows.values()];
}

describe("captions with an engine", () => {
	const world = useWorld();
	const providers = useProviders();

	it("sends the captions as quick drafts and keeps the engine's text, named by the captions, never both", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{
				direct_join: true,
				speech_gap_ms: 2_500,
				participants: [
					{ name: "Grace Hopper", lines: ["The compiler is ready for review."] },
					{ name: "Alan Turing", lines: ["I will read it this afternoon."] },
				],
			},
			{ transcription: { url: providers.url, token: "transcription-token" }, language: "en" },
		);
		// The endpoint's text tells its segments from the captions' (the lines as spoken).
		const fromEngine = (s: Segment) => /^speech lasting \d+ tenths$/.test(s.text);
		await world.room.until(bot.meetingId, (r) => segmentsOf(r).some((s) => s.completed && fromEngine(s) && s.speaker === "Alan Turing"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		const sent = segmentsOf(world.room.received(bot.meetingId));

		// The captions came first, as drafts: the engine's confirmation of a line replaced its caption draft.
		const firstDraft = sent.findIndex((s) => !s.completed && s.text.startsWith("The compiler"));
		const firstConfirmation = sent.findIndex((s) => s.completed);
		expect(firstDraft).toBeGreaterThanOrEqual(0);
		expect(firstDraft).toBeLessThan(firstConfirmation);
		expect(sent[firstDraft]?.segment_id).toBe(sent[firstConfirmation]?.segment_id);
		// No caption text was ever confirmed: the engine covered every line.
		expect(sent.filter((s) => s.completed && !fromEngine(s))).toEqual([]);

		const rows = kept(sent);
		// Nothing is left a draft, and every line is the engine's, under the name the captions showed.
		expect(rows.filter((r) => !r.completed)).toEqual([]);
		expect(rows.map((r) => [r.speaker, r.speaker_source])).toEqual([
			["Grace Hopper", "caption"],
			["Alan Turing", "caption"],
		]);
		for (const r of rows) {
			expect(fromEngine(r)).toBe(true);
			expect(r.confidence).toBeGreaterThan(0);
		}
		// The engine heard the audio, with its own endpoint token.
		expect(providers.transcriptions.some((t) => t.authorization === "Bearer transcription-token")).toBe(true);
	});
});
