/** Local text to speech with espeak-ng: the default voice of the bot and of sandbox participants. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fixWavSizes } from "./wav.ts";

const run = promisify(execFile);

/** The voice of any text whose requested voice espeak-ng cannot speak. */
export const DEFAULT_ESPEAK_VOICE = "en-us";

/**
 * The espeak-ng voice for the API's `voice`, which may be any string: an espeak-ng name
 * (`fr`, `en-gb`) passes through; anything else (`auto`, the OpenAI names, another provider's
 * `en-US-1`) is the default voice.
 */
export function espeakVoice(voice: string | undefined): string {
	if (voice && /^[a-z]{2,3}(-[a-z0-9]+)?$/i.test(voice) && voice.length <= 12) return voice;
	return DEFAULT_ESPEAK_VOICE;
}

/** WAV of `text`; a voice espeak-ng does not have (`zz`) speaks with the default voice rather than not at all. */
export async function espeakWav(text: string, voice = DEFAULT_ESPEAK_VOICE): Promise<Buffer> {
	try {
		return await synthesize(text, voice);
	} catch (err) {
		if (voice === DEFAULT_ESPEAK_VOICE) throw err;
		return synthesize(text, DEFAULT_ESPEAK_VOICE);
	}
}

async function synthesize(text: string, voice: string): Promise<Buffer> {
	const { stdout } = await run("espeak-ng", ["-v", voice, "-s", "175", "--stdout", text], {
		encoding: "buffer",
		maxBuffer: 64 * 1024 * 1024,
	});
	return fixWavSizes(stdout);
}
