/** The rule for captions that cannot be read (caption-watch.ts), on an injected clock: no browser. */
import { describe, expect, it } from "vitest";
import { CAPTION_WATCH_DEFAULTS, CaptionWatch, HeardSpeech } from "../bot/caption-watch.ts";
import type { CaptionLine } from "../drivers/types.ts";

const line = (key: string, text: string): CaptionLine => ({ key, speaker: "Ana", text });

/** A watch from t = 0 with the default limits, and a clock that hears `voicedMs` of every second it advances. */
function watched() {
	const heard = new HeardSpeech(CAPTION_WATCH_DEFAULTS.windowMs);
	const watch = new CaptionWatch(heard, 0);
	let now = 0;
	const moves: { at: number; move: string }[] = [];
	const pass = (ms: number, voicedMsPerSecond: number, captions?: (at: number) => CaptionLine[]) => {
		for (const end = now + ms; now < end; ) {
			now += 1_000;
			heard.add(voicedMsPerSecond, now);
			if (captions) watch.saw(captions(now), now);
			const move = watch.observe(now);
			if (move) moves.push({ at: now, move });
		}
	};
	return { watch, heard, moves, pass, now: () => now };
}

describe("people heard while no caption is read", () => {
	it("asks once, 30 s after the last caption read, when 10 s of speech were heard since", () => {
		const { moves, pass } = watched();
		pass(90_000, 1_000);
		expect(moves).toEqual([{ at: 30_000, move: "ask" }]);
	});

	it("asks only once enough speech was heard: a quiet meeting asks nothing, a sparse one asks later", () => {
		const quiet = watched();
		quiet.pass(300_000, 0);
		expect(quiet.moves).toEqual([]);
		// Two of every ten seconds voiced: 6 s heard by 30 s, 10 s at 42 s.
		const sparse = watched();
		for (let i = 0; i < 6; i++) {
			sparse.pass(2_000, 1_000);
			sparse.pass(8_000, 0);
		}
		expect(sparse.moves).toEqual([{ at: 42_000, move: "ask" }]);
	});

	it("forgets speech older than the window: a cough a minute ago adds nothing", () => {
		const { moves, pass } = watched();
		pass(8_000, 1_000);
		pass(120_000, 0);
		pass(5_000, 1_000);
		expect(moves).toEqual([]);
		pass(5_000, 1_000);
		expect(moves).toEqual([{ at: 138_000, move: "ask" }]);
	});

	it("asks nothing while captions keep being read, whatever is heard", () => {
		const { moves, pass } = watched();
		pass(300_000, 1_000, (at) => [line("1", `line at ${Math.floor(at / 5_000)}`)]);
		expect(moves).toEqual([]);
	});

	it("counts a caption that stays on screen unchanged as nothing new read", () => {
		const { moves, pass } = watched();
		pass(40_000, 1_000, () => [line("1", "the same words"), line("2", "")]);
		expect(moves).toEqual([{ at: 31_000, move: "ask" }]);
	});

	it("recovers once at the first caption read after asking, and asks again only after another quiet spell", () => {
		const { watch, moves, pass, now } = watched();
		pass(30_000, 1_000);
		expect(watch.asking).toBe(true);
		pass(20_000, 1_000);
		expect(moves).toEqual([{ at: 30_000, move: "ask" }]);
		pass(1_000, 1_000, (at) => [line("7", `read at ${at}`)]);
		expect(moves.at(-1)).toEqual({ at: now(), move: "recovered" });
		expect(watch.asking).toBe(false);
		const recoveredAt = now();
		pass(29_000, 1_000);
		expect(moves).toHaveLength(2);
		pass(1_000, 1_000);
		expect(moves.at(-1)).toEqual({ at: recoveredAt + 30_000, move: "ask" });
	});

	it("starts the quiet afresh after another help episode", () => {
		const { watch, moves, pass } = watched();
		pass(30_000, 1_000);
		watch.restart(30_000);
		expect(watch.asking).toBe(false);
		pass(29_000, 1_000);
		expect(moves).toEqual([{ at: 30_000, move: "ask" }]);
		pass(1_000, 1_000);
		expect(moves).toEqual([
			{ at: 30_000, move: "ask" },
			{ at: 60_000, move: "ask" },
		]);
	});

	it("takes limits set for tests, and says in words what is wrong and what the bot does", () => {
		const heard = new HeardSpeech(20_000);
		const watch = new CaptionWatch(heard, 0, { heardMs: 2_000, quietMs: 5_000, windowMs: 20_000 });
		for (let t = 1_000; t <= 5_000; t += 1_000) heard.add(500, t);
		expect(watch.observe(4_999)).toBeNull();
		expect(watch.observe(5_000)).toBe("ask");
		expect(watch.reason(5_000, true)).toBe(
			"people have been heard talking for 3 s, but the bot has read no caption for 5 s: the platform's captions cannot be read " +
				"(the page may have changed where it shows them, or captions are off or not available in this meeting). " +
				"Turn captions on in the meeting if they are off; the bot stays in the call and keeps recording, and carries on as soon as it reads a caption",
		);
		expect(watch.reason(5_000, false)).toContain("the bot stays in the call, and carries on");
	});

	it("takes only positive amounts of speech", () => {
		const heard = new HeardSpeech(60_000);
		heard.add(-5, 1);
		heard.add(Number.NaN, 2);
		heard.add(750, 3);
		expect(heard.since(0)).toBe(750);
		expect(heard.since(3)).toBe(0);
	});
});
