/** What a WAV file's header says about its audio. */
export interface WavFormat {
	sampleRate: number;
	channels: number;
	bitsPerSample: number;
	/** Offset of the PCM data and its length in bytes. */
	dataOffset: number;
	dataBytes: number;
}

/** Reads a RIFF/WAVE header (skipping chunks such as LIST); null when it is not PCM WAV. */
export function parseWavHeader(bytes: Uint8Array): WavFormat | null {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
	if (bytes.length < 44 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
	let fmt: Omit<WavFormat, "dataOffset" | "dataBytes"> | null = null;
	let at = 12;
	while (at + 8 <= bytes.length) {
		const id = tag(at);
		const size = view.getUint32(at + 4, true);
		if (id === "fmt ") {
			if (at + 24 > bytes.length || view.getUint16(at + 8, true) !== 1) return null;
			fmt = {
				channels: view.getUint16(at + 10, true),
				sampleRate: view.getUint32(at + 12, true),
				bitsPerSample: view.getUint16(at + 22, true),
			};
		} else if (id === "data") {
			if (!fmt || fmt.channels === 0 || fmt.sampleRate === 0 || fmt.bitsPerSample === 0) return null;
			return { ...fmt, dataOffset: at + 8, dataBytes: size };
		}
		at += 8 + size + (size % 2);
	}
	return null;
}

export function wavDurationSeconds(format: WavFormat): number {
	return format.dataBytes / (format.sampleRate * format.channels * (format.bitsPerSample / 8));
}
