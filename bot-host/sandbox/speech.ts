/**
 * Real speech for sandbox participants: espeak-ng renders each line to WAV once; the page
 * plays it as a participant's media stream while showing the matching caption.
 */
import { espeakWav } from "../bot/tts.ts";
import { wavDurationMs } from "../bot/wav.ts";

export interface SpokenLine {
	wav: Buffer;
	durationMs: number;
}

const cache = new Map<string, Promise<SpokenLine>>();

export function speak(text: string, voice = "en-us"): Promise<SpokenLine> {
	const key = `${voice}\u0000${text}`;
	let line = cache.get(key);
	if (!line) {
		line = espeakWav(text, voice).then((wav) => ({ wav, durationMs: wavDurationMs(wav) }));
		cache.set(key, line);
		line.catch(() => cache.delete(key));
	}
	return line;
}
