/**
 * Audio source for the transcript: the meeting mix (16 kHz mono PCM16) is cut into utterances
 * by energy, sent to an OpenAI-compatible /v1/audio/transcriptions endpoint while it grows
 * (drafts), and confirmed once two consecutive passes over the whole utterance agree.
 */
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { type EgressPolicy, requestGuarded } from "./egress.ts";
import { encodeWav, rms } from "./wav.ts";

export const SAMPLE_RATE = 16_000;
const FRAME_BYTES = (SAMPLE_RATE / 10) * 2; // 100 ms
const VOICED_RMS = 0.01;
const END_SILENCE_FRAMES = 6;
const MAX_UTTERANCE_FRAMES = 200;
const DRAFT_EVERY_FRAMES = 20;
const MAX_FINAL_PASSES = 3;

/** Lines speech models produce from silence or noise. */
const HALLUCINATIONS = new Set([
	"",
	"you",
	"thank you",
	"thank you.",
	"thanks for watching!",
	"thank you for watching.",
	"thank you for watching!",
	"subtitles by the amara.org community",
	"[blank_audio]",
	"[music]",
	"(music)",
	"bye.",
]);

export interface TranscriberOptions {
	url: string;
	token: string | null;
	/** The endpoint may be an account's own URL: it goes through the egress guard like any other. */
	egress: EgressPolicy;
	language: string | null;
	task: "transcribe" | "translate";
	prefix: string;
	/** Milliseconds since the call started, for a sample count since capture started. */
	callOffsetMs: () => number;
	speakerBetween: (fromMs: number, toMs: number) => { speaker: string; source: BotSegment["speaker_source"] };
	emit: (segment: BotSegment) => void;
	log: (line: string) => void;
}

interface Utterance {
	id: number;
	frames: Buffer[];
	startMs: number;
	silentFrames: number;
	lastDraftText: string | null;
	drafting: boolean;
}

export class Transcriber {
	language: string | null;
	task: "transcribe" | "translate";
	private readonly o: TranscriberOptions;
	private pending = Buffer.alloc(0);
	private utterance: Utterance | null = null;
	private nextId = 0;
	private preRoll: Buffer[] = [];
	private queue: Promise<void> = Promise.resolve();

	constructor(o: TranscriberOptions) {
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
		this.recognise(audio)
			.then((text) => {
				if (text === null || this.utterance !== u) return;
				u.lastDraftText = text;
				this.o.emit(this.segment(u, text, endMs, false));
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
		let text: string | null = null;
		for (let pass = 0; pass < MAX_FINAL_PASSES; pass++) {
			text = await this.recognise(audio);
			if (text !== null && text === previous) break;
			previous = text;
		}
		if (text === null || HALLUCINATIONS.has(text.trim().toLowerCase())) return;
		this.o.emit(this.segment(u, text, endMs, true));
	}

	private segment(u: Utterance, text: string, endMs: number, completed: boolean): BotSegment {
		const who = this.o.speakerBetween(u.startMs, endMs);
		const offset = Date.now() - this.o.callOffsetMs();
		return {
			segment_id: `${this.o.prefix}-a${u.id}`,
			speaker: who.speaker,
			speaker_source: who.source,
			text,
			start: u.startMs / 1000,
			end: endMs / 1000,
			language: this.language,
			completed,
			absolute_start_time: new Date(offset + u.startMs).toISOString(),
			absolute_end_time: new Date(offset + endMs).toISOString(),
		};
	}

	/** One pass over the audio; null for nothing usable (errors are thrown). */
	private async recognise(pcm: Buffer): Promise<string | null> {
		const form = new FormData();
		form.set("file", new Blob([new Uint8Array(encodeWav(pcm, SAMPLE_RATE))], { type: "audio/wav" }), "audio.wav");
		form.set("model", "whisper-1");
		form.set("response_format", "json");
		if (this.language) form.set("language", this.language);
		if (this.task === "translate") form.set("task", "translate");
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
		const body = JSON.parse(res.body.toString("utf8")) as { text?: unknown };
		const text = typeof body.text === "string" ? body.text.trim() : "";
		return HALLUCINATIONS.has(text.toLowerCase()) ? null : text;
	}
}

/** Accept a base URL (`…`, `…/v1`) or the full endpoint. */
export function transcriptionEndpoint(url: string): string {
	const trimmed = url.replace(/\/+$/, "");
	if (trimmed.endsWith("/audio/transcriptions")) return trimmed;
	if (trimmed.endsWith("/v1")) return `${trimmed}/audio/transcriptions`;
	return `${trimmed}/v1/audio/transcriptions`;
}
