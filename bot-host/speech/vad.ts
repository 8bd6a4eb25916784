/**
 * Voice activity detection in front of whisper: only utterances reach the model, so silence and
 * steady noise cost nothing and cannot be turned into invented text.
 *
 * A 20 ms frame is speech when it is louder than an absolute floor (-55 dBFS), louder than the
 * room's noise floor by 9 dB, and not spectrally flat (speech piles its energy into harmonics and
 * formants; hiss, fans and static spread it evenly). The noise floor follows the quietest frames
 * at once and rises slowly (3 dB a second), so a fan switched on is learnt within seconds while a
 * talker's pauses keep it low. An utterance opens on speech (with 200 ms of audio before it),
 * closes after 600 ms without speech or at 25 s, and is dropped with less than 250 ms of speech.
 */

export const SAMPLE_RATE = 16_000;
const FRAME_SAMPLES = 320;
export const FRAME_MS = (FRAME_SAMPLES / SAMPLE_RATE) * 1000;
const ABSOLUTE_FLOOR_DB = -55;
const ABOVE_NOISE_DB = 9;
const NOISE_RISE_DB_PER_FRAME = 3 * (FRAME_MS / 1000);
const MAX_FLATNESS = 0.3;
const PRE_ROLL_FRAMES = 10;
const END_SILENCE_FRAMES = 30;
const MAX_UTTERANCE_FRAMES = 25_000 / FRAME_MS;
const MIN_SPEECH_FRAMES = 250 / FRAME_MS;
/** Frames kept after the last speech frame, so a word's tail is not cut. */
const TAIL_FRAMES = 10;

const FFT_SIZE = 512;
/** The bins between 100 Hz and 4 kHz: where speech's structure is. */
const LOW_BIN = Math.round((100 * FFT_SIZE) / SAMPLE_RATE);
const HIGH_BIN = Math.round((4000 * FFT_SIZE) / SAMPLE_RATE);
const WINDOW = Float64Array.from({ length: FRAME_SAMPLES }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (FRAME_SAMPLES - 1)));

/** In-place radix-2 FFT. */
function fft(re: Float64Array, im: Float64Array): void {
	const n = re.length;
	for (let i = 1, j = 0; i < n; i++) {
		let bit = n >> 1;
		for (; j & bit; bit >>= 1) j ^= bit;
		j ^= bit;
		if (i < j) {
			[re[i], re[j]] = [re[j] as number, re[i] as number];
			[im[i], im[j]] = [im[j] as number, im[i] as number];
		}
	}
	for (let size = 2; size <= n; size <<= 1) {
		const step = (-2 * Math.PI) / size;
		for (let start = 0; start < n; start += size) {
			for (let k = 0; k < size / 2; k++) {
				const [wr, wi] = [Math.cos(step * k), Math.sin(step * k)];
				const a = start + k;
				const b = a + size / 2;
				const tr = (re[b] as number) * wr - (im[b] as number) * wi;
				const ti = (re[b] as number) * wi + (im[b] as number) * wr;
				re[b] = (re[a] as number) - tr;
				im[b] = (im[a] as number) - ti;
				re[a] = (re[a] as number) + tr;
				im[a] = (im[a] as number) + ti;
			}
		}
	}
}

/** Energy (dBFS) and spectral flatness (0 tonal .. 1 white) of one frame of PCM16. */
export function frameFeatures(frame: Buffer): { db: number; flatness: number } {
	const re = new Float64Array(FFT_SIZE);
	const im = new Float64Array(FFT_SIZE);
	let energy = 0;
	for (let i = 0; i < FRAME_SAMPLES; i++) {
		const v = frame.readInt16LE(i * 2) / 0x8000;
		energy += v * v;
		re[i] = v * (WINDOW[i] as number);
	}
	const db = 10 * Math.log10(energy / FRAME_SAMPLES + 1e-12);
	fft(re, im);
	let logSum = 0;
	let sum = 0;
	for (let k = LOW_BIN; k < HIGH_BIN; k++) {
		const power = (re[k] as number) ** 2 + (im[k] as number) ** 2 + 1e-12;
		logSum += Math.log(power);
		sum += power;
	}
	const bins = HIGH_BIN - LOW_BIN;
	return { db, flatness: Math.exp(logSum / bins) / (sum / bins) };
}

/** One utterance the gate let through: its audio and where it sits in the stream (samples). */
export interface Utterance {
	id: number;
	startSample: number;
	audio: Buffer[];
	speechFrames: number;
	silentFrames: number;
}

export interface GateEvents {
	/** A new utterance opened (its audio so far includes the pre-roll). */
	open?: (u: Utterance) => void;
	/** More audio joined the open utterance. */
	grow?: (u: Utterance) => void;
	/** The utterance ended with enough speech; `audio` ends shortly after its last speech frame. */
	close: (u: Utterance, audio: Buffer) => void;
	/** The utterance ended as a false start (too little speech): nothing of it may be shown. */
	discard?: (u: Utterance) => void;
}

/** Streaming gate: feed it PCM16 at 16 kHz in any chunk size; it calls back per utterance. */
export class VoiceGate {
	private pending: Buffer = Buffer.alloc(0);
	private samples = 0;
	private noiseDb: number | null = null;
	private preRoll: Buffer[] = [];
	private open: Utterance | null = null;
	private nextId = 0;
	private readonly events: GateEvents;

	constructor(events: GateEvents) {
		this.events = events;
	}

	/** Samples fed so far (the stream's clock). */
	get position(): number {
		return this.samples;
	}

	push(pcm: Buffer): void {
		this.pending = this.pending.length ? Buffer.concat([this.pending, pcm]) : pcm;
		const bytes = FRAME_SAMPLES * 2;
		let at = 0;
		for (; at + bytes <= this.pending.length; at += bytes) this.frame(Buffer.from(this.pending.subarray(at, at + bytes)));
		this.pending = this.pending.subarray(at);
	}

	/** Close what is open (end of stream or a flush). */
	end(): void {
		if (this.open) this.finish(this.open);
	}

	private isSpeech(frame: Buffer): boolean {
		const { db, flatness } = frameFeatures(frame);
		const floor = this.noiseDb ?? db;
		const speech = db >= ABSOLUTE_FLOOR_DB && db >= floor + ABOVE_NOISE_DB && flatness < MAX_FLATNESS;
		this.noiseDb = db < floor ? db : floor + NOISE_RISE_DB_PER_FRAME;
		return speech;
	}

	private frame(frame: Buffer): void {
		const speech = this.isSpeech(frame);
		const frameStart = this.samples;
		this.samples += FRAME_SAMPLES;
		const u = this.open;
		if (!u) {
			this.preRoll.push(frame);
			if (this.preRoll.length > PRE_ROLL_FRAMES) this.preRoll.shift();
			if (!speech) return;
			const opened: Utterance = {
				id: ++this.nextId,
				startSample: frameStart - (this.preRoll.length - 1) * FRAME_SAMPLES,
				audio: this.preRoll,
				speechFrames: 1,
				silentFrames: 0,
			};
			this.preRoll = [];
			this.open = opened;
			this.events.open?.(opened);
			return;
		}
		u.audio.push(frame);
		if (speech) {
			u.speechFrames += 1;
			u.silentFrames = 0;
		} else u.silentFrames += 1;
		if (u.silentFrames >= END_SILENCE_FRAMES || u.audio.length >= MAX_UTTERANCE_FRAMES) this.finish(u);
		else this.events.grow?.(u);
	}

	private finish(u: Utterance): void {
		this.open = null;
		if (u.speechFrames < MIN_SPEECH_FRAMES) {
			this.events.discard?.(u);
			return;
		}
		const keep = u.audio.length - Math.max(0, u.silentFrames - TAIL_FRAMES);
		this.events.close(u, Buffer.concat(u.audio.slice(0, keep)));
	}
}

/** Where speech is in a whole recording: [startSample, audio] per utterance. */
export function speechSpans(pcm: Buffer): { startSample: number; audio: Buffer }[] {
	const spans: { startSample: number; audio: Buffer }[] = [];
	const gate = new VoiceGate({ close: (u, audio) => spans.push({ startSample: u.startSample, audio }) });
	gate.push(pcm);
	gate.end();
	return spans;
}
