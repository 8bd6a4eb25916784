/**
 * The live transcription protocol of `GET /v1/audio/stream` (WebSocket), documented in
 * docs/speech.md. The client sends one `start`, then binary frames of 16 kHz mono PCM16LE
 * audio (any size), then `flush` or `stop`; the server answers `ready`, then per utterance
 * zero or more `draft`s and one `final` (or `dropped` when the utterance proved to hold
 * nothing), all under the utterance's `id`. Times are seconds of stream audio since its first
 * sample. Silence produces no message at all.
 */

export const STREAM_PATH = "/v1/audio/stream";
export const STREAM_SAMPLE_RATE = 16_000;

export type ClientMessage =
	| {
			type: "start";
			/** ISO 639-1 code, or null to detect per utterance. */
			language: string | null;
			/** Whisper's initial prompt: names and terms the meeting uses. */
			prompt?: string;
			/** Words to hint; made into a prompt sentence when `prompt` is absent. */
			vocabulary?: string[];
			task?: "transcribe" | "translate";
			sample_rate: typeof STREAM_SAMPLE_RATE;
			/** Send word timings with each final (one token-timed pass instead of a plain one). */
			words?: boolean;
	  }
	/** The meeting's language changed: later passes use it. */
	| { type: "language"; language: string | null }
	/** End the open utterance now and answer `flushed` once every pass is done. */
	| { type: "flush" }
	/** As flush, then the server sends `done` and closes. */
	| { type: "stop" };

export interface StreamWord {
	word: string;
	start: number;
	end: number;
}

export type ServerMessage =
	| { type: "ready"; model: string; sample_rate: typeof STREAM_SAMPLE_RATE; vad: string }
	| { type: "draft"; id: number; text: string; start: number; end: number; language: string | null }
	| { type: "final"; id: number; text: string; start: number; end: number; language: string | null; words?: StreamWord[] }
	/** The utterance held nothing usable (a known silence line, or no text): forget its drafts. */
	| { type: "dropped"; id: number }
	| { type: "flushed" }
	| { type: "done" }
	| { type: "error"; detail: string };
