/**
 * Captions and an engine together, without a browser: caption segments as the caption tracker
 * sends them, an engine's segments as it emits them, and what the room keeps of what is sent
 * (a draft replaced by the same id, a confirmation never by a draft).
 */
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { CaptionsWithEngine } from "../bot/transcription/captions-with-engine.ts";
import type { SpeechEngine } from "../bot/transcription/speech-engine.ts";

/** What the room keeps: per id, the last segment sent, except that a draft never replaces a confirmation. */
function kept(sent: BotSegment[]): BotSegment[] {
	const rows = new Map<string, BotSegment>();
	for (const s of sent) {
		const before = rows.get(s.segment_id);
		if (before?.completed && !s.completed) continue;
		rows.set(s.segment_id, s);
	}
	return [...rows.values()];
}

const overlaps = (a: BotSegment, b: BotSegment) => a.start < b.end && b.start < a.end;

/** The public transcript's rule: no draft left, and no caption text over a stretch an engine confirmed. */
function expectOneSourcePerStretch(rows: BotSegment[]): void {
	expect(rows.filter((r) => !r.completed)).toEqual([]);
	const engine = rows.filter((r) => r.source !== "captions");
	for (const caption of rows.filter((r) => r.source === "captions")) {
		for (const e of engine) expect(overlaps(caption, e), `${caption.text} over ${e.text}`).toBe(false);
	}
}

const caption = (key: string, text: string, at: number, speaker = "Ann", completed = false): BotSegment => ({
	segment_id: `b-${key}`,
	speaker,
	speaker_source: "caption",
	text,
	start: at,
	end: at,
	language: "en",
	completed,
	source: "captions",
});

const heard = (id: number, text: string, start: number, end: number, completed: boolean): BotSegment => ({
	segment_id: `b-a${id}`,
	speaker: "Unknown speaker",
	speaker_source: "none",
	text,
	start,
	end,
	language: "en",
	completed,
	confidence: 0.9,
	source: "openai",
});

/** An engine whose flush sends what it still holds. */
class ScriptedEngine implements SpeechEngine {
	language: string | null = "en";
	task: "transcribe" | "translate" = "transcribe";
	pushed = 0;
	atFlush: BotSegment[] = [];
	emit: (segment: BotSegment) => void = () => {};
	push(): void {
		this.pushed++;
	}
	async flush(): Promise<void> {
		for (const s of this.atFlush) this.emit(s);
	}
}

function merge() {
	const sent: BotSegment[] = [];
	const engine = new ScriptedEngine();
	const merged = new CaptionsWithEngine({ prefix: "b", callStartedAt: Date.parse("2026-11-29T10:00:00Z"), emit: (s) => sent.push(s) });
	merged.around(engine);
	engine.emit = merged.fromEngine;
	return { sent, engine, merged };
}

describe("captions with an engine", () => {
	it("shows captions as the draft, and the engine's confirmation replaces it under the same id", async () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "Hello", 1.2));
		merged.fromCaptions(caption("c1", "Hello there", 1.6));
		merged.fromCaptions(caption("c1", "Hello there", 2.4, "Ann", true));
		merged.fromEngine(heard(1, "Hello there.", 1.0, 2.2, true));
		expect(sent.map((s) => [s.segment_id, s.text, s.completed, s.source])).toEqual([
			["b-merged-1", "Hello", false, "captions"],
			["b-merged-1", "Hello there", false, "captions"],
			["b-merged-1", "Hello there.", true, "openai"],
		]);
		// The caption named the speaker; the engine's segment takes that name, and keeps its own fields.
		expect(sent[2]).toMatchObject({ speaker: "Ann", speaker_source: "caption", confidence: 0.9, start: 1.0, end: 2.2 });
		await merged.flush();
		expect(sent).toHaveLength(3);
		expectOneSourcePerStretch(kept(sent));
	});

	it("opens a new stretch with the caption text the confirmation did not cover", () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "First part.", 1.5));
		merged.fromCaptions(caption("c1", "First part. Second", 5.0));
		merged.fromEngine(heard(1, "First part.", 1.0, 2.0, true));
		expect(sent.slice(-2).map((s) => [s.segment_id, s.text, s.completed])).toEqual([
			["b-merged-1", "First part.", true],
			["b-merged-2", "Second", false],
		]);
	});

	it("confirms caption text no engine stretch covers as captions, before the engine's next confirmation", async () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "Mm-hmm.", 1.0, "Bob"));
		merged.fromCaptions(caption("c2", "Let us begin", 6.0));
		merged.fromEngine(heard(1, "Let us begin.", 5.5, 7.0, true));
		merged.fromCaptions(caption("c3", "Late words", 20.0));
		await merged.flush();
		const rows = kept(sent);
		expect(rows.map((r) => [r.segment_id, r.speaker, r.text, r.source])).toEqual([
			["b-merged-1", "Bob", "Mm-hmm.", "captions"],
			["b-merged-2", "Ann", "Let us begin.", "openai"],
			["b-merged-3", "Ann", "Late words", "captions"],
		]);
		expectOneSourcePerStretch(rows);
	});

	it("shows the engine's draft while captions show nothing, and the captions' once they do", () => {
		const { sent, merged } = merge();
		merged.fromEngine(heard(1, "hello", 1.0, 2.0, false));
		merged.fromCaptions(caption("c1", "Hello there", 2.1));
		merged.fromEngine(heard(1, "hello the", 1.0, 3.0, false));
		expect(sent.map((s) => [s.segment_id, s.text, s.source])).toEqual([
			["b-merged-1", "hello", "openai"],
			["b-merged-1", "Hello there", "captions"],
		]);
	});

	it("keeps an engine segment's id when it is sent again with a speaker, and passes audio and settings to the engine", () => {
		const { sent, merged, engine } = merge();
		merged.fromEngine(heard(1, "Status is green.", 1.0, 2.0, true));
		merged.fromEngine({ ...heard(1, "Status is green.", 1.0, 2.0, true), speaker: "Ann", speaker_source: "active_speaker" });
		expect(sent.map((s) => [s.segment_id, s.speaker])).toEqual([
			["b-merged-1", "Unknown speaker"],
			["b-merged-1", "Ann"],
		]);
		merged.push(Buffer.alloc(3200), 100);
		merged.language = "de";
		merged.task = "translate";
		expect([engine.pushed, engine.language, engine.task]).toEqual([1, "de", "translate"]);
	});

	it("waits for the engine's last confirmations when the bot leaves, then confirms what is left as captions", async () => {
		const { sent, merged, engine } = merge();
		merged.fromCaptions(caption("c1", "We are done", 30.0));
		merged.fromCaptions(caption("c1", "We are done here", 31.0, "Ann", true));
		merged.fromCaptions(caption("c2", "Bye now", 40.0, "Bob", true));
		engine.atFlush = [heard(7, "We are done here.", 29.5, 31.0, true)];
		await merged.flush();
		const rows = kept(sent);
		expect(rows.map((r) => [r.speaker, r.text, r.source])).toEqual([
			["Ann", "We are done here.", "openai"],
			["Bob", "Bye now", "captions"],
		]);
		expectOneSourcePerStretch(rows);
	});

	it("takes only the new words of a confirmed, covered caption that changes again", () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "Ship it", 1.0, "Ann", true));
		merged.fromEngine(heard(1, "Ship it.", 0.8, 1.5, true));
		merged.fromCaptions(caption("c1", "Ship it on Friday", 9.0));
		expect(sent.at(-1)).toMatchObject({ segment_id: "b-merged-2", text: "on Friday", completed: false });
	});

	it("takes no fragment of a word rewritten or cut inside what the engine covered", () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "I think their go", 1.0));
		merged.fromEngine(heard(1, "I think they're going.", 0.8, 1.6, true));
		// The platform rewrites a word it showed, and finishes the last one.
		merged.fromCaptions(caption("c1", "I think they're going", 2.0));
		merged.fromCaptions(caption("c1", "I think they're going to ship", 5.0));
		expect(sent.filter((s) => s.segment_id === "b-merged-2").map((s) => s.text)).toEqual(["to ship"]);
	});

	it("confirms captions as captions when the engine confirms nothing for a minute", () => {
		const { sent, merged } = merge();
		merged.fromCaptions(caption("c1", "Is the relay down?", 10.0, "Ann", true));
		merged.fromCaptions(caption("c2", "Still talking", 69.0, "Bob"));
		expect(sent.filter((s) => s.completed)).toEqual([]);
		merged.fromCaptions(caption("c2", "Still talking here", 71.0, "Bob"));
		expect(sent.filter((s) => s.completed).map((s) => [s.segment_id, s.text, s.source])).toEqual([
			["b-merged-1", "Is the relay down?", "captions"],
		]);
		expect(sent.at(-1)).toMatchObject({ segment_id: "b-merged-2", text: "Still talking here", completed: false });
	});

	it("never keeps both for one stretch, over a long meeting of two speakers", async () => {
		const { sent, merged, engine } = merge();
		// Captions trail the speech by up to a second; the engine confirms each utterance after it ends, some not at all.
		let id = 0;
		for (let turn = 0; turn < 40; turn++) {
			const start = turn * 4;
			const speaker = turn % 2 === 0 ? "Ann" : "Bob";
			const words = ["one", "two", "three", "four", "five"];
			for (let w = 1; w <= words.length; w++) {
				merged.fromCaptions(caption(`c${turn}`, words.slice(0, w).join(" "), start + 0.3 + w * 0.5, speaker));
			}
			if (turn % 7 === 3) continue;
			merged.fromEngine(heard(++id, `turn ${turn}`, start, start + 2.8, false));
			merged.fromEngine(heard(id, `turn ${turn} heard`, start, start + 2.9, true));
		}
		engine.atFlush = [];
		await merged.flush();
		const rows = kept(sent);
		expectOneSourcePerStretch(rows);
		// Every turn is there once: by the engine, or by the captions where the engine heard nothing.
		expect(rows.filter((r) => r.source === "openai")).toHaveLength(34);
		expect(rows.filter((r) => r.source === "captions").map((r) => r.text)).toEqual(Array(6).fill("one two three four five"));
		for (const r of rows) expect(r.speaker_source).toBe("caption");
	});
});
