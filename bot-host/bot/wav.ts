/** WAV helpers: the bot records and uploads PCM16 WAV, and reads espeak-ng's output. */

/** Duration from the header's format and the byte count (streamed WAVs carry placeholder sizes). */
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

/** A mono PCM16 WAV file around raw samples. */
export function encodeWav(pcm: Buffer, sampleRate: number): Buffer {
	return Buffer.concat([wavHeader(pcm.length, sampleRate), pcm]);
}

/** The length of the header wavHeader writes. */
export const WAV_HEADER_BYTES = 44;

/** The 44-byte header of a mono PCM16 WAV file with `dataBytes` of samples after it. */
export function wavHeader(dataBytes: number, sampleRate: number): Buffer {
	const header = Buffer.alloc(WAV_HEADER_BYTES);
	header.write("RIFF", 0, "ascii");
	header.writeUInt32LE(36 + dataBytes, 4);
	header.write("WAVE", 8, "ascii");
	header.write("fmt ", 12, "ascii");
	header.writeUInt32LE(16, 16);
	header.writeUInt16LE(1, 20);
	header.writeUInt16LE(1, 22);
	header.writeUInt32LE(sampleRate, 24);
	header.writeUInt32LE(sampleRate * 2, 28);
	header.writeUInt16LE(2, 32);
	header.writeUInt16LE(16, 34);
	header.write("data", 36, "ascii");
	header.writeUInt32LE(dataBytes, 40);
	return header;
}

/** Root mean square of PCM16 samples, 0..1. */
export function rms(pcm: Buffer): number {
	const samples = Math.floor(pcm.length / 2);
	if (samples === 0) return 0;
	let sum = 0;
	for (let i = 0; i < samples; i++) {
		const v = pcm.readInt16LE(i * 2) / 0x8000;
		sum += v * v;
	}
	return Math.sqrt(sum / samples);
}
