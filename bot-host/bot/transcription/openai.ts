/**
 * Audio source for the transcript: the meeting mix (16 kHz mono PCM16) is cut into utterances
 * by energy, sent to an OpenAI-compatible /v1/audio/transcriptions endpoint while it grows
 * (drafts), and confirmed once two consecutive passes over the whole utterance agree. Passes
 * ask for `verbose_json`, so segments carry the detected language, a confidence and (once
 * confirmed) word timings; an endpoint that answers plain `{text}` still works without them.
 */
import { type BotSegment, type SpawnRequest, transcriptionEndpoint } from "../../../src/bot-channel/protocol.ts";
import { isHallucination } from "../../speech/hallucinations.ts";
import { type EgressPolicy, requestGuarded } from "../egress.ts";
import { PROVISIONAL_SPEAKER } from "../transcript.ts";
import { encodeWav, rms } from "../wav.ts";
import { languageCode } from "../whisper-languages.ts";
import { type EngineOptions, SAMPLE_RATE, type SpeechEngine } from "./engine.ts";
import { vocabularyPrompt } from "./vocabulary.ts";

const FRAME_BYTES = (SAMPLE_RATE / 10) * 2; // 100 ms
const VOICED_RMS = 0.01;
const END_SILENCE_FRAMES = 6;
const MAX_UTTERANCE_FRAMES = 200;
const DRAFT_EVERY_FRAMES = 20;
const MAX_FINAL_PASSES = 3;
/** Whisper's own silence rule: a window is no speech when both hold for every segment. */
const NO_SPEECH_PROB = 0.6;
const NO_SPEECH_LOGPROB = -1;

export interface OpenAIEngineOptions extends EngineOptions {
	url: string;
	token: string | null;
}

/** What one pass over an utterance heard. */
interface Recognition {
	text: string;
	/** ISO code the endpoint detected (or was told); null when it did not say. */
	language: string | null;
	confidence: number | null;
	/** Seconds from the start of the utterance's audio. */
	words: BotSegment["words"];
}

interface Utterance {
	id: number;
	frames: Buffer[];
	startMs: number;
	silentFrames: number;
	lastDraftText: string | null;
	drafting: boolean;
}

export class OpenAIEngine implements SpeechEngine {
	language: string | null;
	task: "transcribe" | "translate";
	private readonly o: OpenAIEngineOptions;
	private pending = Buffer.alloc(0);
	private utterance: Utterance | null = null;
	private nextId = 0;
	private preRoll: Buffer[] = [];
	private queue: Promise<void> = Promise.resolve();

	constructor(o: OpenAIEngineOptions) {
		this.o = o;
		this.language = o.language;
		this.task = o.task;
	}

	/** Meeting audio as it arrives; `endMs` is the call offset of its last sample. */
	push(pcm: Buffer, endMs: number): void {
		this.pending = Buffer.concat([this.pending, pcm]);
		let frameEnd = endMs - (this.pending.length / 2 / SAMPLE_RATE) * 1000;
		while (this.pending.length >= FRAME_BYTES) {
			const frame = this.pending.subarray(0, FRAME_BYTES);
			this.pending = this.pending.subarray(FRAME_BYTES);
			frameEnd += 100;
			this.frame(Buffer.from(frame), frameEnd);
		}
	}

	/** Finish the open utterance and wait for every request in flight. */
	async flush(): Promise<void> {
		if (this.utterance) this.close(this.utterance);
		await this.queue;
	}

	private frame(frame: Buffer, endMs: number): void {
		const voiced = rms(frame) >= VOICED_RMS;
		let u = this.utterance;
		if (!u) {
			this.preRoll = [...this.preRoll.slice(-2), frame];
			if (!voiced) return;
			u = {
				id: ++this.nextId,
				frames: [...this.preRoll],
				startMs: endMs - this.preRoll.length * 100,
				silentFrames: 0,
				lastDraftText: null,
				drafting: false,
			};
			this.utterance = u;
			this.preRoll = [];
			return;
		}
		u.frames.push(frame);
		u.silentFrames = voiced ? 0 : u.silentFrames + 1;
		if (u.silentFrames >= END_SILENCE_FRAMES || u.frames.length >= MAX_UTTERANCE_FRAMES) this.close(u);
		else if (u.frames.length % DRAFT_EVERY_FRAMES === 0 && !u.drafting) this.draft(u);
	}

	private draft(u: Utterance): void {
		u.drafting = true;
		const audio = Buffer.concat(u.frames);
		const endMs = u.startMs + u.frames.length * 100;
		this.recognise(audio, false)
			.then((heard) => {
				if (heard === null || this.utterance !== u) return;
				u.lastDraftText = heard.text;
				this.o.emit(this.segment(u, heard, endMs, false));
			})
			.catch((err: unknown) => this.o.log(`transcription draft failed: ${String(err)}`))
			.finally(() => {
				u.drafting = false;
			});
	}

	private close(u: Utterance): void {
		this.utterance = null;
		const voicedFrames = u.frames.length - u.silentFrames;
		if (voicedFrames < 3) return;
		const audio = Buffer.concat(u.frames.slice(0, voicedFrames + 2));
		const endMs = u.startMs + (voicedFrames + 2) * 100;
		this.queue = this.queue
			.then(() => this.confirm(u, audio, endMs))
			.catch((err: unknown) => this.o.log(`transcription failed: ${String(err)}`));
	}

	private async confirm(u: Utterance, audio: Buffer, endMs: number): Promise<void> {
		let previous = u.lastDraftText;
		let heard: Recognition | null = null;
		for (let pass = 0; pass < MAX_FINAL_PASSES; pass++) {
			heard = await this.recognise(audio, true);
			if (heard !== null && heard.text === previous) break;
			previous = heard?.text ?? null;
		}
		if (heard === null || isHallucination(heard.text)) return;
		this.o.emit(this.segment(u, heard, endMs, true));
	}

	/**
	 * Asked again for every draft and the confirmation: a speaker the platform shows only later
	 * replaces the provisional label under the same segment_id.
	 */
	private segment(u: Utterance, heard: Recognition, endMs: number, completed: boolean): BotSegment {
		const who = this.o.speakerBetween(u.startMs, endMs);
		const offset = Date.now() - this.o.callOffsetMs();
		const at = u.startMs / 1000;
		return {
			segment_id: `${this.o.prefix}-a${u.id}`,
			speaker: who.source === "none" ? PROVISIONAL_SPEAKER : who.speaker,
			speaker_source: who.source,
			text: heard.text,
			start: at,
			end: endMs / 1000,
			language: heard.language ?? this.language,
			completed,
			source: "openai",
			...(heard.confidence !== null ? { confidence: heard.confidence } : {}),
			...(heard.words?.length ? { words: heard.words.map((w) => ({ ...w, start: at + w.start, end: at + w.end })) } : {}),
			absolute_start_time: new Date(offset + u.startMs).toISOString(),
			absolute_end_time: new Date(offset + endMs).toISOString(),
		};
	}

	/**
	 * One pass over the audio; null for nothing usable (errors are thrown). Word timestamps cost
	 * the endpoint extra time, so only confirmation passes ask for them.
	 */
	private async recognise(pcm: Buffer, withWords: boolean): Promise<Recognition | null> {
		const form = new FormData();
		form.set("file", new Blob([new Uint8Array(encodeWav(pcm, SAMPLE_RATE))], { type: "audio/wav" }), "audio.wav");
		form.set("model", "whisper-1");
		form.set("response_format", "verbose_json");
		// Asking for words alone drops the segments (and their log-probabilities) from the answer.
		form.append("timestamp_granularities[]", "segment");
		if (withWords) form.append("timestamp_granularities[]", "word");
		if (this.language) form.set("language", this.language);
		if (this.task === "translate") form.set("task", "translate");
		// Whisper reads the prompt as text that came before: the names it lists are spelled as given.
		const prompt = vocabularyPrompt(this.o.vocabulary);
		if (prompt) form.set("prompt", prompt);
		const encoded = new Response(form);
		const res = await requestGuarded(transcriptionEndpoint(this.o.url), {
			what: "the transcription endpoint",
			policy: this.o.egress,
			method: "POST",
			headers: {
				"content-type": encoded.headers.get("content-type") ?? "multipart/form-data",
				...(this.o.token ? { authorization: `Bearer ${this.o.token}` } : {}),
			},
			body: Buffer.from(await encoded.arrayBuffer()),
			maxBytes: 1024 * 1024,
			timeoutMs: 30_000,
			// The token was meant for this endpoint only: a redirect is an error, never followed.
			maxRedirects: 0,
		});
		if (res.status < 200 || res.status >= 300) throw new Error(`transcription endpoint answered ${res.status}`);
		return recognition(JSON.parse(res.body.toString("utf8")));
	}
}

interface VerboseSegment {
	start?: unknown;
	end?: unknown;
	avg_logprob?: unknown;
	no_speech_prob?: unknown;
}

const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Reads a `json` or `verbose_json` answer; null for silence, noise and known hallucinations. */
function recognition(body: unknown): Recognition | null {
	const answer = (body ?? {}) as { text?: unknown; language?: unknown; segments?: unknown; words?: unknown };
	const text = typeof answer.text === "string" ? answer.text.trim() : "";
	if (isHallucination(text)) return null;
	const segments = (Array.isArray(answer.segments) ? answer.segments : []).filter(
		(s): s is VerboseSegment & { avg_logprob: number } => typeof s === "object" && s !== null && isNumber(s.avg_logprob),
	);
	const silent = (s: VerboseSegment & { avg_logprob: number }) =>
		isNumber(s.no_speech_prob) && s.no_speech_prob > NO_SPEECH_PROB && s.avg_logprob < NO_SPEECH_LOGPROB;
	if (segments.length > 0 && segments.every(silent)) return null;
	return { text, language: languageCode(answer.language), confidence: confidenceOf(segments), words: wordsOf(answer.words) };
}

/**
 * Whisper reports no confidence, only each segment's mean token log-probability: exp() of it
 * is the geometric-mean token probability, weighted here by segment length and clamped to
 * [0, 1] (the wire's range).
 */
function confidenceOf(segments: (VerboseSegment & { avg_logprob: number })[]): number | null {
	if (segments.length === 0) return null;
	let weighted = 0;
	let total = 0;
	for (const s of segments) {
		const length = isNumber(s.start) && isNumber(s.end) && s.end > s.start ? s.end - s.start : 1;
		weighted += s.avg_logprob * length;
		total += length;
	}
	const p = Math.exp(weighted / total);
	return Math.min(1, Math.max(0, Number.isFinite(p) ? p : 0));
}

function wordsOf(words: unknown): BotSegment["words"] {
	if (!Array.isArray(words)) return undefined;
	const out: NonNullable<BotSegment["words"]> = [];
	for (const w of words as { word?: unknown; start?: unknown; end?: unknown; probability?: unknown }[]) {
		if (typeof w?.word !== "string" || !isNumber(w.start) || !isNumber(w.end)) continue;
		const word = w.word.trim();
		if (word === "") continue;
		out.push({ word, start: w.start, end: w.end, ...(isNumber(w.probability) ? { probability: w.probability } : {}) });
	}
	return out;
}

/**
 * The egress policy for a spawn request's transcription endpoint. The Worker's relay is on the
 * gateway, which the bot reaches as it reaches its channel: an operator's address (private in
 * a self-hosted fleet), so the guard for users' URLs does not refuse it; metadata addresses
 * stay refused, and a redirect is still not followed. Any other endpoint is judged as a user's.
 */
export function transcriptionEgress(request: Pick<SpawnRequest, "channel" | "transcription">, policy: EgressPolicy): EgressPolicy {
	const origin = (url: string) => (URL.canParse(url) ? new URL(url.replace(/^ws(s?):/, "http$1:")).origin : null);
	const gateway = origin(request.channel.url);
	const onGateway = gateway !== null && request.transcription !== null && origin(request.transcription.url) === gateway;
	return onGateway ? { ...policy, allowPrivate: true } : policy;
}
