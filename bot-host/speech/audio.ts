/**
 * Uploaded audio to what whisper takes (16 kHz mono PCM16). WAV only: PCM 16-bit, or 32-bit
 * float, any channel count (averaged to mono) and any rate from 8 kHz (resampled). Compressed
 * formats would need a decoder this service does not carry; the refusal says how to convert.
 */
import { SAMPLE_RATE } from "./vad.ts";

export class AudioRefused extends Error {
	override readonly name = "AudioRefused";
}

const CONVERT = "convert it first, e.g. `ffmpeg -i input -ar 16000 -ac 1 -c:a pcm_s16le output.wav`";

interface Format {
	encoding: 1 | 3;
	channels: number;
	rate: number;
	bits: number;
}

/** 16 kHz mono PCM16 from a WAV file's bytes. */
export function decodeWav(file: Buffer): Buffer {
	if (file.length < 12 || file.toString("ascii", 0, 4) !== "RIFF" || file.toString("ascii", 8, 12) !== "WAVE")
		throw new AudioRefused(`only WAV audio is accepted; ${CONVERT}`);
	let format: Format | null = null;
	let data: Buffer | null = null;
	for (let at = 12; at + 8 <= file.length; ) {
		const id = file.toString("ascii", at, at + 4);
		// Streamed WAVs leave the data size unset (0 or 0xFFFFFFFF): the data runs to the end.
		const declared = file.readUInt32LE(at + 4);
		const size = id === "data" && (declared === 0 || at + 8 + declared > file.length) ? file.length - at - 8 : declared;
		const body = file.subarray(at + 8, at + 8 + size);
		if (id === "fmt " && body.length >= 16) {
			const tag = body.readUInt16LE(0);
			// WAVE_FORMAT_EXTENSIBLE keeps the real tag in its sub-format GUID.
			const encoding = tag === 0xfffe && body.length >= 26 ? body.readUInt16LE(24) : tag;
			format = { encoding: encoding as 1 | 3, channels: body.readUInt16LE(2), rate: body.readUInt32LE(4), bits: body.readUInt16LE(14) };
		} else if (id === "data") data = body;
		at += 8 + size + (size % 2);
	}
	if (!format || !data) throw new AudioRefused("the WAV file has no format or no data chunk");
	const pcm16 = format.encoding === 1 && format.bits === 16;
	const float32 = format.encoding === 3 && format.bits === 32;
	if (!pcm16 && !float32) throw new AudioRefused(`the WAV file is not 16-bit PCM or 32-bit float; ${CONVERT}`);
	if (format.channels < 1 || format.rate < 8000 || format.rate > 192_000)
		throw new AudioRefused(`the WAV file's ${format.channels} channels at ${format.rate} Hz cannot be used; ${CONVERT}`);
	const frames = Math.floor(data.length / ((format.bits / 8) * format.channels));
	const mono = new Float32Array(frames);
	for (let i = 0; i < frames; i++) {
		let sum = 0;
		for (let c = 0; c < format.channels; c++) {
			const at = (i * format.channels + c) * (format.bits / 8);
			sum += pcm16 ? data.readInt16LE(at) / 0x8000 : data.readFloatLE(at);
		}
		mono[i] = sum / format.channels;
	}
	return toPcm16(format.rate === SAMPLE_RATE ? mono : resample(mono, format.rate));
}

/**
 * To 16 kHz by linear interpolation, after averaging each output sample's span of input when
 * going down (a box low-pass, enough to keep speech's band free of aliasing for recognition).
 */
function resample(input: Float32Array, rate: number): Float32Array {
	const ratio = rate / SAMPLE_RATE;
	const out = new Float32Array(Math.floor(input.length / ratio));
	const span = Math.max(1, Math.floor(ratio));
	for (let i = 0; i < out.length; i++) {
		const position = i * ratio;
		const at = Math.floor(position);
		if (span > 1) {
			let sum = 0;
			for (let k = 0; k < span; k++) sum += input[Math.min(at + k, input.length - 1)] as number;
			out[i] = sum / span;
		} else {
			const next = input[Math.min(at + 1, input.length - 1)] as number;
			out[i] = (input[at] as number) + (next - (input[at] as number)) * (position - at);
		}
	}
	return out;
}

function toPcm16(samples: Float32Array): Buffer {
	const out = Buffer.alloc(samples.length * 2);
	for (let i = 0; i < samples.length; i++) out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i] as number)) * 0x7fff), i * 2);
	return out;
}
