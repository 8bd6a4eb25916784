/**
 * The bot's own speech (espeak-ng, real): the API takes any `voice` (docs/api.md#interactive-bot-actions),
 * so a voice espeak-ng does not have must still be spoken, with the default voice.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_ESPEAK_VOICE, espeakVoice, espeakWav } from "../bot/tts.ts";

describe("espeak voices", () => {
	it("maps the API's names (auto, OpenAI's, another provider's) to the default and passes espeak-ng names", () => {
		for (const name of [undefined, "auto", "alloy", "nova", "en-US-1", "a very long voice name"]) {
			expect(espeakVoice(name), String(name)).toBe(DEFAULT_ESPEAK_VOICE);
		}
		expect(espeakVoice("fr")).toBe("fr");
		expect(espeakVoice("en-gb")).toBe("en-gb");
	});

	it("speaks a voice espeak-ng does not have with the default voice, and a voice it has with that voice", async () => {
		const line = "The notes are in the shared document.";
		const byDefault = await espeakWav(line);
		expect(byDefault.subarray(0, 4).toString("latin1")).toBe("RIFF");
		expect(await espeakWav(line, espeakVoice("zz"))).toEqual(byDefault);
		expect(await espeakWav(line, espeakVoice("fr"))).not.toEqual(byDefault);
	});
});
