/**
 * A whisper model small enough to write in a test: the ggml layout whisper.cpp's loader reads
 * (whisper.cpp/src/whisper.cpp, whisper_model_load: magic, hparams, mel filters, vocab, then
 * named tensors), with real whisper's token ids and audio shape (51865 tokens, 80 mels, a
 * 1500-frame audio context) but a 32-wide state and one layer each side, and seeded random
 * weights. It proves loading, serving, streaming and timestamps; it cannot recognise speech.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export const GGML_MAGIC = 0x67676d6c;
const STATE = 32;
const HEADS = 2;
const AUDIO_CTX = 1500;
const TEXT_CTX = 448;
const MELS = 80;
const N_FFT = 201;
/** Multilingual whisper's size (language detection has its 99 language tokens); English-only models have one fewer. */
const MULTILINGUAL_VOCAB = 51865;
const ENGLISH_VOCAB = 51864;
/** Ordinary (text) tokens written to the file; whisper.cpp names the special ones itself. */
const TEXT_TOKENS = 50257;

/** Deterministic weights (mulberry32), so a model file is the same on every run. */
export function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** The ggml file's little-endian pieces, in order. */
export class Writer {
	private readonly parts: Buffer[] = [];
	i32(...values: number[]): void {
		const b = Buffer.alloc(4 * values.length);
		for (const [i, v] of values.entries()) b.writeInt32LE(v, i * 4);
		this.parts.push(b);
	}
	f32(values: Float32Array): void {
		this.parts.push(Buffer.from(values.buffer, values.byteOffset, values.byteLength));
	}
	f16(values: Float32Array): void {
		const b = Buffer.alloc(2 * values.length);
		for (const [i, v] of values.entries()) b.writeUInt16LE(half(v), i * 2);
		this.parts.push(b);
	}
	bytes(b: Buffer): void {
		this.parts.push(b);
	}
	done(): Buffer {
		return Buffer.concat(this.parts);
	}
}

/** IEEE half precision of a small float (no infinities or subnormals needed here). */
export function half(v: number): number {
	const f = new DataView(new ArrayBuffer(4));
	f.setFloat32(0, v);
	const bits = f.getUint32(0);
	const sign = (bits >>> 16) & 0x8000;
	const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
	if (exponent <= 0) return sign;
	return sign | (Math.min(exponent, 30) << 10) | ((bits >>> 13) & 0x3ff);
}

/** Triangular filters over the 201 FFT bins, spaced on the mel scale as Whisper's are. */
function melFilters(): Float32Array {
	const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
	const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
	const edges = Array.from({ length: MELS + 2 }, (_, i) => hz((mel(8000) * i) / (MELS + 1)));
	const out = new Float32Array(MELS * N_FFT);
	for (let m = 0; m < MELS; m++) {
		const [lo, mid, hi] = [edges[m] as number, edges[m + 1] as number, edges[m + 2] as number];
		for (let k = 0; k < N_FFT; k++) {
			const f = (k * 8000) / (N_FFT - 1);
			const w = f < lo || f > hi ? 0 : f <= mid ? (f - lo) / (mid - lo) : (hi - f) / (hi - mid);
			out[m * N_FFT + k] = (w * 2) / (hi - lo);
		}
	}
	return out;
}

/** Token i's text: the 256 byte tokens first (so any prompt tokenises), then short words. */
function tokenText(i: number): Buffer {
	if (i < 256) return Buffer.from([i]);
	const syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "va"];
	let word = "";
	for (let n = i; n > 0; n = Math.floor(n / 10)) word += syllables[n % 10];
	return Buffer.from(` ${word}`);
}

/** The tensors whisper_model_load creates, with their ggml shapes (ne0 first). */
function tensorShapes(vocab: number): [string, number[]][] {
	const s = STATE;
	const block = (prefix: string, cross: boolean): [string, number[]][] => {
		const attn = (name: string): [string, number[]][] => [
			[`${prefix}.${name}_ln.weight`, [s]],
			[`${prefix}.${name}_ln.bias`, [s]],
			[`${prefix}.${name}.query.weight`, [s, s]],
			[`${prefix}.${name}.query.bias`, [s]],
			[`${prefix}.${name}.key.weight`, [s, s]],
			[`${prefix}.${name}.value.weight`, [s, s]],
			[`${prefix}.${name}.value.bias`, [s]],
			[`${prefix}.${name}.out.weight`, [s, s]],
			[`${prefix}.${name}.out.bias`, [s]],
		];
		return [
			[`${prefix}.mlp_ln.weight`, [s]],
			[`${prefix}.mlp_ln.bias`, [s]],
			[`${prefix}.mlp.0.weight`, [s, 4 * s]],
			[`${prefix}.mlp.0.bias`, [4 * s]],
			[`${prefix}.mlp.2.weight`, [4 * s, s]],
			[`${prefix}.mlp.2.bias`, [s]],
			...attn("attn"),
			...(cross ? attn("cross_attn") : []),
		];
	};
	return [
		["encoder.positional_embedding", [s, AUDIO_CTX]],
		["encoder.conv1.weight", [3, MELS, s]],
		["encoder.conv1.bias", [1, s]],
		["encoder.conv2.weight", [3, s, s]],
		["encoder.conv2.bias", [1, s]],
		["encoder.ln_post.weight", [s]],
		["encoder.ln_post.bias", [s]],
		...block("encoder.blocks.0", false),
		["decoder.positional_embedding", [s, TEXT_CTX]],
		["decoder.token_embedding.weight", [s, vocab]],
		["decoder.ln.weight", [s]],
		["decoder.ln.bias", [s]],
		...block("decoder.blocks.0", true),
	];
}

export interface TinyModelOptions {
	seed?: number;
	/** false: an English-only model (as `base.en`), which cannot detect a language. */
	multilingual?: boolean;
}

/** The model file's bytes. */
export function tinyModel(o: TinyModelOptions = {}): Buffer {
	const rand = random(o.seed ?? 36);
	const vocab = o.multilingual === false ? ENGLISH_VOCAB : MULTILINGUAL_VOCAB;
	const w = new Writer();
	w.i32(GGML_MAGIC);
	// n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
	// n_text_head, n_text_layer, n_mels, ftype (1: f16, as the published models)
	w.i32(vocab, AUDIO_CTX, STATE, HEADS, 1, TEXT_CTX, STATE, HEADS, 1, MELS, 1);
	w.i32(MELS, N_FFT);
	w.f32(melFilters());
	w.i32(TEXT_TOKENS);
	for (let i = 0; i < TEXT_TOKENS; i++) {
		const text = tokenText(i);
		w.i32(text.length);
		w.bytes(text);
	}
	for (const [name, shape] of tensorShapes(vocab)) {
		const count = shape.reduce((a, b) => a * b, 1);
		const values = new Float32Array(count);
		// Layer-norm gains at 1, everything else small and centred, so activations stay finite.
		const gain = /_ln\.weight$|ln_post\.weight$|decoder\.ln\.weight$/.test(name);
		for (let i = 0; i < count; i++) values[i] = gain ? 1 : (rand() - 0.5) * 0.2;
		// The loader's types: matrices and convolutions in the model's f16, vectors and positions in f32.
		const halfPrecision = shape.length > 1 && !name.endsWith("positional_embedding") && !name.endsWith(".bias");
		const nameBytes = Buffer.from(name);
		w.i32(shape.length, nameBytes.length, halfPrecision ? 1 : 0, ...shape);
		w.bytes(nameBytes);
		if (halfPrecision) w.f16(values);
		else w.f32(values);
	}
	return w.done();
}

/** Writes the tiny model into a fresh temporary folder; returns its path. */
export function writeTinyModel(o: TinyModelOptions = {}): string {
	const name = o.multilingual === false ? "ggml-tiny-test.en.bin" : "ggml-tiny-test.bin";
	const file = path.join(mkdtempSync(path.join(tmpdir(), "tiny-whisper-")), name);
	writeFileSync(file, tinyModel(o));
	return file;
}
