/**
 * AssemblyAI's Universal-Streaming API (v3, `/v3/ws`, assemblyai.com/docs/api-reference/streaming-api)
 * through the Worker's relay. A session opens with `Begin`; each `Turn` carries the turn's words so
 * far: `end_of_turn: false` is a draft, and the turn is confirmed by its formatted end
 * (`end_of_turn` and `turn_is_formatted`, as `format_turns=true` asks). `Terminate` ends the
 * session after its last turns (`Termination`, then close 1000). Word times are milliseconds.
 */
import type { StreamConnection } from "./stream.ts";
import { type Heard, StreamingEngine } from "./stream.ts";
import { keyterms } from "./vocabulary.ts";

/** The languages AssemblyAI's multilingual streaming model transcribes; others get the English model. */
const MULTILINGUAL = new Set(["es", "fr", "de", "it", "pt"]);

interface AssemblyWord {
	text?: unknown;
	start?: unknown;
	end?: unknown;
	confidence?: unknown;
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export class AssemblyAIEngine extends StreamingEngine {
	protected readonly source = "assemblyai";
	protected readonly closeMessage = JSON.stringify({ type: "Terminate" });
	/** AssemblyAI keeps a session without audio open unless `inactivity_timeout` is asked for, which this does not. */
	protected readonly keepAlive = null;

	protected query(): URLSearchParams {
		const base = this.language?.split("-")[0]?.toLowerCase() ?? null;
		const multilingual = base === null || MULTILINGUAL.has(base);
		const q = new URLSearchParams({
			sample_rate: "16000",
			encoding: "pcm_s16le",
			format_turns: "true",
			speech_model: multilingual ? "universal-streaming-multilingual" : "universal-streaming-english",
		});
		// Without a meeting language, the multilingual model says which one each turn was in.
		if (base === null) q.set("language_detection", "true");
		const terms = keyterms(this.o.vocabulary);
		if (terms.length) q.set("keyterms_prompt", JSON.stringify(terms));
		return q;
	}

	protected received(connection: StreamConnection, message: Record<string, unknown>): void {
		if (message.type === "Turn") {
			const order = isNumber(message.turn_order) ? message.turn_order : 0;
			const heard = heardOf(message);
			if (!heard) return;
			connection.heard(`t${order}`, heard, message.end_of_turn === true && message.turn_is_formatted === true);
			return;
		}
		if (message.type === "Error" || typeof message.error === "string") {
			this.o.log(`assemblyai: ${String(message.error ?? "an error")}`);
		}
	}
}

/** A Turn's text and words in stream seconds; its `transcript` once words are final, else all its words so far. */
function heardOf(message: Record<string, unknown>): Heard | null {
	const words = (Array.isArray(message.words) ? (message.words as AssemblyWord[]) : [])
		.filter((w) => typeof w.text === "string" && isNumber(w.start) && isNumber(w.end))
		.map((w) => ({
			word: String(w.text),
			start: (w.start as number) / 1000,
			end: (w.end as number) / 1000,
			...(isNumber(w.confidence) ? { probability: w.confidence } : {}),
		}));
	const transcript = typeof message.transcript === "string" ? message.transcript.trim() : "";
	const text = message.end_of_turn === true && transcript ? transcript : words.map((w) => w.word).join(" ") || transcript;
	const first = words[0];
	const last = words.at(-1);
	if (!text || !first || !last) return null;
	const confidences = words.map((w) => w.probability).filter(isNumber);
	return {
		text,
		startS: first.start,
		endS: last.end,
		language: typeof message.language_code === "string" ? message.language_code : null,
		confidence: confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : null,
		words,
	};
}
