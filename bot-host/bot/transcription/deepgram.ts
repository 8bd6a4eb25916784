/**
 * Deepgram's live streaming API (`/v1/listen`, developers.deepgram.com/reference/speech-to-text/listen-streaming)
 * through the Worker's relay. Interim `Results` (`is_final: false`) are drafts; a final one
 * (`is_final: true`) fixes its stretch of the utterance, and `speech_final: true` or an
 * `UtteranceEnd` confirms the utterance. `KeepAlive` holds the stream open while nothing is said
 * (Deepgram closes it after 10 s without audio); `CloseStream` ends it after its last results.
 */
import type { StreamConnection } from "./stream.ts";
import { type Heard, StreamingEngine, type StreamOptions } from "./stream.ts";
import { keyterms } from "./vocabulary.ts";

export interface DeepgramOptions extends StreamOptions {
	/** Deepgram's model; nova-3 by default. Keyterm prompting is nova-3's; older models take `keywords`. */
	model?: string;
	/** How long a silent stream waits before a KeepAlive: Deepgram asks for one every 3 to 5 s (it closes after 10 s). */
	keepAliveMs?: number;
}

interface DeepgramWord {
	word?: unknown;
	punctuated_word?: unknown;
	start?: unknown;
	end?: unknown;
	confidence?: unknown;
	language?: unknown;
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** One utterance as its final results built it, and the interim result after them. */
interface Utterance {
	key: string;
	finals: Heard[];
}

export class DeepgramEngine extends StreamingEngine {
	protected readonly source = "deepgram";
	protected readonly closeMessage = JSON.stringify({ type: "CloseStream" });
	protected readonly keepAlive: { message: string; everyMs: number };
	private readonly model: string;
	private readonly open = new WeakMap<StreamConnection, Utterance>();
	private utterances = 0;

	constructor(o: DeepgramOptions) {
		super(o);
		this.model = o.model ?? "nova-3";
		this.keepAlive = { message: JSON.stringify({ type: "KeepAlive" }), everyMs: o.keepAliveMs ?? 4_000 };
	}

	protected query(): URLSearchParams {
		const q = new URLSearchParams({
			model: this.model,
			encoding: "linear16",
			sample_rate: "16000",
			channels: "1",
			interim_results: "true",
			utterance_end_ms: "1000",
			vad_events: "true",
			endpointing: "300",
			punctuate: "true",
			smart_format: "true",
			// Without a meeting language, nova-3 follows the speakers across languages (code-switching).
			language: this.language ?? (this.model.startsWith("nova-3") ? "multi" : "en"),
		});
		if (!this.language && !this.model.startsWith("nova-3")) q.set("detect_language", "true");
		const param = this.model.startsWith("nova-3") ? "keyterm" : "keywords";
		for (const term of keyterms(this.o.vocabulary)) q.append(param, term);
		return q;
	}

	protected received(connection: StreamConnection, message: Record<string, unknown>): void {
		if (message.type === "UtteranceEnd") {
			this.confirm(connection);
			return;
		}
		if (message.type !== "Results") return;
		const heard = heardOf(message);
		let u = this.open.get(connection);
		if (!u) {
			if (!heard || heard.text === "") return;
			u = { key: `u${++this.utterances}`, finals: [] };
			this.open.set(connection, u);
		}
		if (message.is_final === true) {
			if (heard && heard.text !== "") u.finals.push(heard);
			if (message.speech_final === true) {
				this.confirm(connection);
				return;
			}
			const sofar = joined(u.finals);
			if (sofar) connection.heard(u.key, sofar, false);
			return;
		}
		const draft = joined(heard && heard.text !== "" ? [...u.finals, heard] : u.finals);
		if (draft) connection.heard(u.key, draft, false);
	}

	private confirm(connection: StreamConnection): void {
		const u = this.open.get(connection);
		this.open.delete(connection);
		const heard = u ? joined(u.finals) : null;
		if (u && heard) connection.heard(u.key, heard, true);
	}
}

/** The first alternative of a `Results` message, in stream seconds; null when it has none. */
function heardOf(message: Record<string, unknown>): Heard | null {
	const channel = message.channel as { alternatives?: unknown } | undefined;
	const alternative = (Array.isArray(channel?.alternatives) ? channel.alternatives[0] : undefined) as
		| { transcript?: unknown; confidence?: unknown; words?: unknown; languages?: unknown }
		| undefined;
	if (!alternative || typeof alternative.transcript !== "string") return null;
	const words = (Array.isArray(alternative.words) ? (alternative.words as DeepgramWord[]) : [])
		.filter((w) => isNumber(w.start) && isNumber(w.end) && (typeof w.punctuated_word === "string" || typeof w.word === "string"))
		.map((w) => ({
			word: String(typeof w.punctuated_word === "string" ? w.punctuated_word : w.word),
			start: w.start as number,
			end: w.end as number,
			...(isNumber(w.confidence) ? { probability: w.confidence } : {}),
		}));
	const start = isNumber(message.start) ? message.start : 0;
	const duration = isNumber(message.duration) ? message.duration : 0;
	const languages = Array.isArray(alternative.languages) ? alternative.languages.filter((l) => typeof l === "string") : [];
	const wordLanguage = (alternative.words as DeepgramWord[] | undefined)?.find((w) => typeof w.language === "string")?.language;
	return {
		text: alternative.transcript.trim(),
		startS: words[0]?.start ?? start,
		endS: words.at(-1)?.end ?? start + duration,
		language: (languages[0] as string | undefined) ?? (typeof wordLanguage === "string" ? wordLanguage : null),
		confidence: isNumber(alternative.confidence) ? alternative.confidence : null,
		words,
	};
}

/** Several final stretches of one utterance as one: their texts in order, their times and words together. */
function joined(parts: Heard[]): Heard | null {
	const first = parts[0];
	const last = parts.at(-1);
	if (!first || !last) return null;
	const confidences = parts.map((p) => p.confidence).filter((c): c is number => c !== null);
	return {
		text: parts.map((p) => p.text).join(" "),
		startS: first.startS,
		endS: last.endS,
		language: parts.find((p) => p.language)?.language ?? null,
		confidence: confidences.length ? confidences.reduce((a, b) => a + b, 0) / confidences.length : null,
		words: parts.flatMap((p) => p.words),
	};
}
