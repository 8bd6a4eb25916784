/**
 * The parts of @fugood/whisper.node (whisper.cpp's Node binding, prebuilt per platform) this
 * service uses, typed here: the package ships its TypeScript sources instead of declarations,
 * and they do not compile under this project's settings. Shapes from its lib/binding.ts and
 * src/common.cpp (segment times t0/t1 in milliseconds; input is PCM16 at 16 kHz).
 */
import { createRequire } from "node:module";

export interface TranscribeOptions {
	language?: string;
	translate?: boolean;
	maxThreads?: number;
	maxLen?: number;
	tokenTimestamps?: boolean;
	temperature?: number;
	prompt?: string;
}

export interface TranscribeResult {
	/** ISO code whisper decoded with (detected when asked for "auto"). */
	language?: string;
	result: string;
	segments: { text: string; t0: number; t1: number }[];
	isAborted: boolean;
}

export interface WhisperContext {
	transcribeData(pcm16: ArrayBuffer, options?: TranscribeOptions): { stop: () => Promise<void>; promise: Promise<TranscribeResult> };
	release(): Promise<void>;
}

export interface WhisperVadContext {
	/** Speech stretches, t0/t1 in centiseconds. */
	detectSpeechData(
		pcm16: ArrayBuffer,
		options?: { threshold?: number; minSpeechDurationMs?: number },
	): Promise<{ t0: number; t1: number }[]>;
	release(): Promise<void>;
}

interface Binding {
	initWhisper(o: { filePath: string; useGpu?: boolean }): Promise<WhisperContext>;
	initWhisperVad(o: { filePath: string; useGpu?: boolean; nThreads?: number }): Promise<WhisperVadContext>;
}

export const whisper = createRequire(import.meta.url)("@fugood/whisper.node") as Binding;
