/** Local text to speech with espeak-ng: the default voice of the bot and of sandbox participants. */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fixWavSizes } from "./wav.ts";

const run = promisify(execFile);

/** Voice names the public interface accepts map to espeak-ng voices; espeak names pass through. */
export function espeakVoice(voice: string | undefined): string {
	if (voice && /^[a-z]{2,3}(-[a-z0-9]+)?$/i.test(voice) && voice.length <= 12) return voice;
	return "en-us";
}

export async function espeakWav(text: string, voice = "en-us"): Promise<Buffer> {
	const { stdout } = await run("espeak-ng", ["-v", voice, "-s", "175", "--stdout", text], {
		encoding: "buffer",
		maxBuffer: 64 * 1024 * 1024,
	});
	return fixWavSizes(stdout);
}
