/**
 * Real speech for sandbox participants: espeak-ng renders each line to WAV once; the page
 * plays it as a participant's media stream while showing the matching caption.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SpokenLine {
	wav: Buffer;
	durationMs: number;
}

const cache = new Map<string, Promise<SpokenLine>>();

export function speak(text: string, voice = "en-us"): Promise<SpokenLine> {
	const key = `${voice}\u0000${text}`;
	let line = cache.get(key);
	if (!line) {
		line = synthesize(text, voice);
		cache.set(key, line);
		line.catch(() => cache.delete(key));
	}
	return line;
}

async function synthesize(text: string, voice: string): Promise<SpokenLine> {
	const { stdout } = await run("espeak-ng", ["-v", voice, "-s", "190", "--stdout", text], {
		encoding: "buffer",
		maxBuffer: 32 * 1024 * 1024,
	});
	const wav = fixWavSizes(stdout);
	return { wav, durationMs: wavDurationMs(wav) };
}

/** Duration from the RIFF header; espeak-ng streams with a placeholder data size, so use the byte count. */
export function wavDurationMs(wav: Buffer): number {
	if (wav.length < 44 || wav.toString("ascii", 0, 4) !== "RIFF") return 0;
	const channels = wav.readUInt16LE(22);
	const sampleRate = wav.readUInt32LE(24);
	const bitsPerSample = wav.readUInt16LE(34);
	const bytesPerSecond = sampleRate * channels * (bitsPerSample / 8);
	return bytesPerSecond > 0 ? Math.round(((wav.length - 44) / bytesPerSecond) * 1000) : 0;
}

/** Patch the RIFF and data sizes that espeak-ng leaves unset when writing to a pipe. */
export function fixWavSizes(wav: Buffer): Buffer {
	const fixed = Buffer.from(wav);
	if (fixed.length >= 44 && fixed.toString("ascii", 36, 40) === "data") {
		fixed.writeUInt32LE(fixed.length - 8, 4);
		fixed.writeUInt32LE(fixed.length - 44, 40);
	}
	return fixed;
}
