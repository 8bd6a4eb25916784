/** Hearing a steady tone in 16-bit audio (Goertzel), to tell which track a capture kept. */

/** The samples of a 44-byte-header PCM16 WAV, and its rate. */
export function wavSamples(wav: Buffer): { samples: Int16Array; rate: number } {
	const pcm = wav.subarray(44);
	return { samples: new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2)), rate: wav.readUInt32LE(24) };
}

/** Goertzel power of one frequency in a window of samples. */
function power(samples: Int16Array, from: number, length: number, hz: number, rate: number): number {
	const k = 2 * Math.cos((2 * Math.PI * hz) / rate);
	let s1 = 0;
	let s2 = 0;
	for (let i = from; i < from + length; i++) {
		const s0 = (samples[i] ?? 0) / 0x8000 + k * s1 - s2;
		s2 = s1;
		s1 = s0;
	}
	return s1 * s1 + s2 * s2 - k * s1 * s2;
}

/** The share of 100 ms windows in which a steady tone stands out of its neighbouring frequencies. */
export function toneShare(samples: Int16Array, rate: number, hz: number): number {
	const size = rate / 10;
	let windows = 0;
	let toned = 0;
	for (let from = 0; from + size <= samples.length; from += size) {
		windows++;
		const around = Math.max(power(samples, from, size, hz - 400, rate), power(samples, from, size, hz + 400, rate));
		if (power(samples, from, size, hz, rate) > 20 * around + 1e-3) toned++;
	}
	return windows === 0 ? 0 : toned / windows;
}
