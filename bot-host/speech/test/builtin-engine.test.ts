import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BotSegment } from "../../../src/bot-channel/protocol.ts";
import { BotSegment as BotSegmentSchema } from "../../../src/bot-channel/protocol.ts";
import { BuiltinEngine, type BuiltinEngineOptions, builtinEgress, speechServiceUrl } from "../../bot/transcription/builtin.ts";
import { type RunningService, seconds, silence, speech, startSpeechService } from "./service.ts";

let service: RunningService;
beforeAll(async () => {
	service = await startSpeechService();
});
afterAll(() => service?.stop());

/** Waits until a condition holds (the service answers in its own time). */
async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await sleep(20);
}

/** The bot joined 10 s into the call; the meeting audio's call offsets start there. */
const JOINED_MS = 10_000;

function engine(o: Partial<BuiltinEngineOptions> & { segments: BotSegment[]; lines?: string[] }): BuiltinEngine {
	const callStartedAt = Date.now() - JOINED_MS;
	return new BuiltinEngine({
		url: service.url,
		// The host's policy refuses private addresses; the operator's speech service is let through.
		egress: builtinEgress({ allowPrivate: false }),
		language: "en",
		task: "transcribe",
		vocabulary: ["Priya", "Q3 roadmap"],
		prefix: "bot7",
		callOffsetMs: () => Date.now() - callStartedAt,
		speakerBetween: (from) => (from < JOINED_MS + 6000 ? { speaker: "Priya", source: "caption" } : { speaker: "", source: "none" }),
		emit: (segment) => o.segments.push(segment),
		log: (line) => o.lines?.push(line),
		...o,
	});
}

/**
 * Pushes audio as the meeting capture does, 100 ms at a time with its call offset from `fromMs`;
 * `pauseAt` (s) waits there for a draft.
 */
async function play(
	bot: BuiltinEngine,
	audio: Buffer,
	segments: BotSegment[],
	o: { fromMs?: number; pauseAt?: number } = {},
): Promise<void> {
	const { pauseAt } = o;
	let endMs = o.fromMs ?? JOINED_MS;
	for (let at = 0; at < audio.length; at += 3200) {
		if (pauseAt !== undefined && at === Math.round(pauseAt * 10) * 3200) await waitFor(() => segments.some((s) => !s.completed));
		const chunk = audio.subarray(at, at + 3200);
		endMs += (chunk.length / 2 / 16_000) * 1000;
		bot.push(chunk, endMs);
		await sleep(5);
	}
}

describe("the bot's built-in engine (client of the speech stream)", () => {
	it("turns the stream into drafts and confirmations under one segment_id, on the call's clock", async () => {
		const segments: BotSegment[] = [];
		const bot = engine({ segments });
		const first = speech("Priya will present the third quarter roadmap after the break.");
		const second = speech("Then we close with questions from the team.");
		const audio = Buffer.concat([silence(1500), first, silence(2500), second, silence(1500)]);
		await play(bot, audio, segments, { pauseAt: 1.5 + 2.5 });
		await bot.flush();

		for (const segment of segments) expect(BotSegmentSchema.safeParse(segment).error).toBeUndefined();
		const finals = segments.filter((s) => s.completed);
		expect(finals.map((s) => s.segment_id)).toEqual(["bot7-b1", "bot7-b2"]);
		const drafts = segments.filter((s) => !s.completed);
		expect(drafts.length).toBeGreaterThan(0);
		for (const draft of drafts) {
			const final = finals.find((f) => f.segment_id === draft.segment_id);
			expect(final).toBeDefined();
			expect(segments.indexOf(draft)).toBeLessThan(segments.indexOf(final as BotSegment));
		}
		const [one, two] = finals as [BotSegment, BotSegment];
		// Seconds from the call's start: the bot's 10 s, then where the speech is in its audio.
		expect(one.start).toBeGreaterThanOrEqual(10 + 1.2);
		expect(one.end).toBeLessThanOrEqual(10 + 1.5 + seconds(first) + 0.5);
		expect(two.start).toBeGreaterThan(one.end);
		expect(two.end).toBeLessThanOrEqual(10 + seconds(audio));
		expect(one).toMatchObject({ speaker: "Priya", speaker_source: "caption", language: "en", source: "builtin" });
		expect(two).toMatchObject({ speaker: "Unknown speaker", speaker_source: "none" });
		for (const word of one.words ?? []) {
			expect(word.start).toBeGreaterThanOrEqual(one.start);
			expect(word.end).toBeLessThanOrEqual(one.end + 0.001);
		}
		const wall = Date.parse(one.absolute_end_time ?? "") - Date.parse(one.absolute_start_time ?? "");
		expect(wall).toBeCloseTo((one.end - one.start) * 1000, -1);
	});

	it("emits nothing for a silent stretch, and the first words after it on their own time", async () => {
		const segments: BotSegment[] = [];
		const bot = engine({ segments });
		await play(bot, silence(6000), segments);
		await bot.flush();
		expect(segments).toEqual([]);
		// Flushed, the stream ended; audio 3 s later opens a new one, on the call's clock from its first sample.
		await play(bot, Buffer.concat([speech("Can everyone hear me now?"), silence(1000)]), segments, { fromMs: JOINED_MS + 9000 });
		await bot.flush();
		expect(segments.filter((s) => s.completed)).toHaveLength(1);
		for (const s of segments) expect(s.start).toBeGreaterThanOrEqual(10 + 9 - 0.25);
		for (const s of segments) expect(s.start).toBeLessThan(10 + 9 + 0.5);
	});

	it("reconnects when the service comes back, numbering segments on without reusing an id", async () => {
		const segments: BotSegment[] = [];
		const lines: string[] = [];
		const first = await startSpeechService();
		const bot = engine({ segments, lines, url: first.url });
		// Not flushed: the service goes away under an open stream.
		await play(bot, Buffer.concat([speech("First part of the meeting."), silence(1000)]), segments);
		await waitFor(() => segments.some((s) => s.completed));
		await first.stop();
		// The same address again, as a restarted pod behind its Service.
		const again = await startSpeechService({ SPEECH_PORT: new URL(first.url).port });
		try {
			// The first push after the drop finds no connection; the next attempt waits out the pause between tries.
			await play(bot, silence(500), segments, { fromMs: JOINED_MS + 4000 });
			await sleep(5500);
			await play(bot, Buffer.concat([speech("Second part, after the restart."), silence(1000)]), segments, { fromMs: JOINED_MS + 10_000 });
			await bot.flush();
			const finals = segments.filter((s) => s.completed);
			expect(finals.map((s) => s.segment_id)).toEqual(["bot7-b1", "bot7-b2"]);
			// The new stream's clock starts at the call offset of its first audio, and the gap before the words is kept.
			expect(finals[1]?.start).toBeGreaterThanOrEqual(10 + 10 - 0.3);
			expect(finals[1]?.start).toBeLessThan(10 + 10 + 0.5);
		} finally {
			await again.stop();
		}
	});

	it("survives a speech service that is not there: logged, nothing emitted, flush returns", async () => {
		const segments: BotSegment[] = [];
		const lines: string[] = [];
		const closed = await startSpeechService();
		await closed.stop();
		const bot = engine({ segments, lines, url: closed.url });
		bot.push(speech("Is anyone transcribing this?"), JOINED_MS + 2000);
		await bot.flush();
		expect(segments).toEqual([]);
		expect(lines.join("\n")).toMatch(/speech stream error: .*ECONNREFUSED/);
	});

	it("tells whisper a language it knows: the primary subtag, or none (detect) for one it does not", async () => {
		const segments: BotSegment[] = [];
		for (const [asked, told] of [
			["pt-BR", "pt"],
			["tlh", null],
		] as const) {
			const bot = engine({ segments, language: asked });
			await play(bot, Buffer.concat([speech("Bom dia a todos."), silence(1000)]), segments);
			await bot.flush();
			const last = segments.filter((s) => s.completed).at(-1);
			// Whisper's language when told, its detected one otherwise (never the meeting's unknown code).
			if (told) expect(last?.language).toBe(told);
			else expect(last?.language).toMatch(/^[a-z]{2,3}$/);
			expect(last?.language).not.toBe(asked);
		}
		expect(segments.filter((s) => s.completed)).toHaveLength(2);
	});

	it("finds the service at the host's SPEECH_URL, and none without it", () => {
		expect(speechServiceUrl({ SPEECH_URL: " http://meetbot-speech:18055 " })).toBe("http://meetbot-speech:18055");
		expect(speechServiceUrl({ SPEECH_URL: "" })).toBeNull();
		expect(speechServiceUrl({})).toBeNull();
	});

	it("keeps to the host's egress rules: a refused address is logged, never reached", async () => {
		const segments: BotSegment[] = [];
		const lines: string[] = [];
		const bot = engine({ segments, lines, url: "http://169.254.169.254:18057" });
		bot.push(speech("hello"), JOINED_MS + 1000);
		await sleep(200);
		await bot.flush();
		expect(segments).toEqual([]);
		expect(lines.join("\n")).toMatch(/^speech service unreachable: the speech service is refused/);
	});
});
