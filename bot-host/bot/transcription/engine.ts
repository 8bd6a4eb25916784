/**
 * What the engines on the bot side share (the interface they implement is speech-engine.ts): the
 * audio they take, and the options each adapter is made with. Each emits segments, drafts
 * (`completed: false`) then each one's confirmation under the same `segment_id`, with `source` set
 * to the engine's name.
 */
import type { BotSegment } from "../../../src/bot-channel/protocol.ts";
import type { EgressPolicy } from "../egress.ts";

export type { SpeechEngine } from "./speech-engine.ts";

/** The meeting audio every engine takes: 16 kHz mono PCM16 (little-endian). */
export const SAMPLE_RATE = 16_000;

/** The options every adapter takes, besides its own address and token. */
export interface EngineOptions {
	/** Segment ids start with it: one per bot in the meeting. */
	prefix: string;
	language: string | null;
	task: "transcribe" | "translate";
	/** Words and names to hint to the engine (the bot's, the account's and the calendar's list). */
	vocabulary: string[];
	/** Milliseconds since the call started, for a sample count since capture started. */
	callOffsetMs: () => number;
	speakerBetween: (fromMs: number, toMs: number) => { speaker: string; source: BotSegment["speaker_source"] };
	emit: (segment: BotSegment) => void;
	log: (line: string) => void;
	/** The endpoint may be an account's own URL: it goes through the egress guard like any other. */
	egress: EgressPolicy;
}
