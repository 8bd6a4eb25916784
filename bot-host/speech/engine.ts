/**
 * The one whisper model of the service and the queue in front of it. whisper.cpp runs one
 * transcription at a time per context (its session holds a lock), each on SPEECH_THREADS cores;
 * two runs side by side would only split the same cores. So passes wait here in two lines:
 * confirmations and HTTP requests first, then drafts, and a draft no longer wanted when its
 * turn comes (its utterance has moved on) is skipped instead of run.
 */
import { open } from "node:fs/promises";
import { isHallucination } from "./hallucinations.ts";
import { SAMPLE_RATE } from "./vad.ts";
import { type TranscribeResult, type WhisperContext, type WhisperVadContext, whisper } from "./whisper-binding.ts";

export interface HeardWord {
	word: string;
	start: number;
	end: number;
}

export interface HeardSegment {
	start: number;
	end: number;
	text: string;
}

/** What one pass heard; times in seconds from the start of the audio it was given. */
export interface Heard {
	text: string;
	/** The language whisper used: the one asked for, or the one it detected. */
	language: string | null;
	segments: HeardSegment[];
	/** Only when asked for. */
	words?: HeardWord[];
	/** Seconds of audio and of work, for the real-time factor. */
	audioSeconds: number;
	computeSeconds: number;
}

export interface PassOptions {
	/** ISO code, or null to detect (multilingual models; English-only ones say "en"). */
	language: string | null;
	prompt?: string;
	words?: boolean;
	translate?: boolean;
	temperature?: number;
	/** Drafts wait behind everything else. */
	draft?: boolean;
	/** Asked again when a draft's turn comes: false skips it. */
	stillWanted?: () => boolean;
}

interface Job {
	run: () => Promise<void>;
	skip: () => void;
	stillWanted: () => boolean;
}

export interface SpeechModelOptions {
	modelPath: string;
	threads: number;
	/** A ggml silero VAD file: a second opinion on each utterance before whisper hears it. */
	vadModelPath?: string | null;
}

/**
 * Whether a ggml whisper file is multilingual: its vocabulary size, the first of the hyperparameters
 * after the magic (whisper.cpp's whisper_vocab::is_multilingual: 51865 tokens or more).
 */
async function isMultilingual(modelPath: string): Promise<boolean> {
	const file = await open(modelPath, "r");
	try {
		const header = Buffer.alloc(8);
		await file.read(header, 0, 8, 0);
		return header.readInt32LE(4) >= 51_865;
	} finally {
		await file.close();
	}
}

export class SpeechModel {
	readonly name: string;
	readonly threads: number;
	/** An English-only model (`base.en`) cannot detect a language: it is told "en" instead. */
	readonly multilingual: boolean;
	private readonly context: WhisperContext;
	private readonly vad: WhisperVadContext | null;
	private readonly urgent: Job[] = [];
	private readonly drafts: Job[] = [];
	private busy = false;

	private constructor(name: string, threads: number, multilingual: boolean, context: WhisperContext, vad: WhisperVadContext | null) {
		this.name = name;
		this.threads = threads;
		this.multilingual = multilingual;
		this.context = context;
		this.vad = vad;
	}

	static async load(o: SpeechModelOptions): Promise<SpeechModel> {
		const context = await whisper.initWhisper({ filePath: o.modelPath, useGpu: false });
		const vad = o.vadModelPath ? await whisper.initWhisperVad({ filePath: o.vadModelPath, useGpu: false, nThreads: 1 }) : null;
		const name = (o.modelPath.split(/[\\/]/).pop() ?? "whisper").replace(/\.bin$/, "");
		return new SpeechModel(name, o.threads, await isMultilingual(o.modelPath), context, vad);
	}

	get vadKind(): "energy" | "energy+silero" {
		return this.vad ? "energy+silero" : "energy";
	}

	/** Passes waiting (not counting the one running). */
	get waiting(): number {
		return this.urgent.length + this.drafts.length;
	}

	/** One pass over 16 kHz mono PCM16; null when skipped (a draft no longer wanted). */
	transcribe(pcm: Buffer, o: PassOptions): Promise<Heard | null> {
		return new Promise((resolve, reject) => {
			const job: Job = {
				run: () => this.pass(pcm, o).then(resolve, reject),
				skip: () => resolve(null),
				stillWanted: o.stillWanted ?? (() => true),
			};
			(o.draft ? this.drafts : this.urgent).push(job);
			this.next();
		});
	}

	/** Whether silero (when configured) hears any speech in the audio; true without it. */
	async hasSpeech(pcm: Buffer): Promise<boolean> {
		if (!this.vad) return true;
		const spans = await this.vad.detectSpeechData(arrayBufferOf(pcm), { threshold: 0.5, minSpeechDurationMs: 250 });
		return spans.length > 0;
	}

	async release(): Promise<void> {
		await this.context.release();
		await this.vad?.release();
	}

	private next(): void {
		if (this.busy) return;
		const job = this.urgent.shift() ?? this.drafts.shift();
		if (!job) return;
		if (!job.stillWanted()) {
			job.skip();
			this.next();
			return;
		}
		this.busy = true;
		void job.run().finally(() => {
			this.busy = false;
			this.next();
		});
	}

	private async pass(pcm: Buffer, o: PassOptions): Promise<Heard> {
		const started = performance.now();
		const audioSeconds = pcm.length / 2 / SAMPLE_RATE;
		const language = o.language ?? (this.multilingual ? "auto" : "en");
		const { promise } = this.context.transcribeData(arrayBufferOf(pcm), {
			language,
			maxThreads: this.threads,
			...(o.prompt ? { prompt: o.prompt } : {}),
			...(o.translate ? { translate: true } : {}),
			...(o.temperature !== undefined ? { temperature: o.temperature } : {}),
			// Word timings: whisper.cpp splits its segments at every token and times each one.
			...(o.words ? { tokenTimestamps: true, maxLen: 1 } : {}),
		});
		const result = await promise;
		const heard = o.words ? fromTokens(result, audioSeconds) : fromSegments(result, audioSeconds);
		const reported = this.multilingual ? result.language || language : language;
		return {
			...heard,
			language: reported === "auto" ? null : reported,
			audioSeconds,
			computeSeconds: (performance.now() - started) / 1000,
		};
	}
}

type Recognised = Pick<Heard, "text" | "segments" | "words">;

/** Seconds, inside the audio (whisper's last timestamp can run past the end it was given). */
const clampTime = (ms: number, audioSeconds: number) => Math.min(Math.max(0, ms / 1000), audioSeconds);

function fromSegments(result: TranscribeResult, audioSeconds: number): Recognised {
	const segments = result.segments
		.map((s) => ({ start: clampTime(s.t0, audioSeconds), end: clampTime(s.t1, audioSeconds), text: s.text.trim() }))
		.filter((s) => !isHallucination(s.text));
	return { text: segments.map((s) => s.text).join(" "), segments };
}

/** One token per segment: a token that starts with a space starts a word; the rest join the last one. */
function fromTokens(result: TranscribeResult, audioSeconds: number): Recognised {
	const words: HeardWord[] = [];
	for (const token of result.segments) {
		const start = clampTime(token.t0, audioSeconds);
		const end = clampTime(token.t1, audioSeconds);
		const last = words[words.length - 1];
		if (last && !/^\s/.test(token.text)) {
			last.word += token.text;
			last.end = Math.max(last.end, end);
		} else if (token.text.trim()) words.push({ word: token.text.trim(), start, end: Math.max(start, end) });
	}
	// Segments again from the words: a sentence's end or a pause of a second closes one.
	const segments: HeardSegment[] = [];
	let open: HeardWord[] = [];
	const close = () => {
		const first = open[0];
		const last = open[open.length - 1];
		if (first && last) segments.push({ start: first.start, end: last.end, text: open.map((w) => w.word).join(" ") });
		open = [];
	};
	for (const [i, word] of words.entries()) {
		const previous = words[i - 1];
		if (previous && word.start - previous.end >= 1) close();
		open.push(word);
		if (/[.!?]["')\]]?$/.test(word.word)) close();
	}
	close();
	const kept = segments.filter((s) => !isHallucination(s.text));
	const keptWords = words.filter((w) => kept.some((s) => w.start >= s.start && w.end <= s.end));
	return { text: kept.map((s) => s.text).join(" "), segments: kept, words: keptWords };
}

function arrayBufferOf(pcm: Buffer): ArrayBuffer {
	return pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length) as ArrayBuffer;
}
