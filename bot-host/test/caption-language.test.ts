/**
 * Caption segments under auto-detect carry the language their text shows (a segment's
 * `language`, docs/api.md#transcript-segments-from-captions), and null rather than a guess
 * when the text does not say.
 */
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { captionLanguage } from "../bot/caption-language.ts";
import { CaptionTracker } from "../bot/transcript.ts";

describe("the language of caption text", () => {
	it.each([
		["Good morning everyone, let's look at the numbers for this quarter.", "en"],
		["Buenos días a todos, vamos a ver los números de este trimestre.", "es"],
		["Bonjour à tous, c'est le moment de regarder les chiffres avec vous.", "fr"],
		["Guten Morgen, wir schauen uns die Zahlen für das Quartal an.", "de"],
		["Buongiorno a tutti, questo è il momento di guardare i numeri.", "it"],
		["Bom dia a todos, vamos ver os números do trimestre com você.", "pt"],
		["Goedemorgen allemaal, we kijken naar de cijfers van het kwartaal.", "nl"],
		["皆さん、おはようございます。今日の数字を見ましょう。", "ja"],
		["여러분 안녕하세요. 오늘 숫자를 봅시다.", "ko"],
		["大家早上好，我们来看一下这个季度的数字。", "zh"],
		["Καλημέρα σε όλους.", "el"],
	])("reads %s as %s", (text, language) => {
		expect(captionLanguage(text)).toBe(language);
	});

	it.each([
		["a line too short to tell", "Yes."],
		["names and numbers", "Alice, Bob 2026"],
		["function words of two languages in balance", "de en"],
		["a language it does not list", "Huomenta kaikille, katsotaan lukuja."],
	])("says nothing for %s", (_what, text) => {
		expect(captionLanguage(text)).toBeNull();
	});
});

describe("caption segments", () => {
	const tracker = (language: string | null) => {
		const sent: BotSegment[] = [];
		const t = new CaptionTracker({ prefix: "m1", callStartedAt: 0, settleMs: 1_000, language, emit: (s) => sent.push(s) });
		return { t, sent };
	};
	const line = (key: string, text: string) => ({ key, speaker: "Ana", text });

	it("carry the language their text shows under auto-detect, and the meeting's last one for a line too short to tell", () => {
		const { t, sent } = tracker(null);
		t.update([line("1", "Yes.")], [], 0);
		t.update([line("2", "Vamos a revisar los números de este trimestre.")], [], 100);
		t.update([line("3", "Sí.")], [], 200);
		t.flush();
		const confirmed = Object.fromEntries(sent.filter((s) => s.completed).map((s) => [s.text, s.language]));
		// Nothing was known yet when "Yes." came: no language rather than a guess.
		expect(confirmed).toEqual({ "Yes.": null, "Vamos a revisar los números de este trimestre.": "es", "Sí.": "es" });
	});

	it("carry the forced language whatever the text looks like", () => {
		const { t, sent } = tracker("fr");
		t.update([line("1", "We will look at the numbers for this quarter.")], [], 0);
		t.flush();
		expect(sent.every((s) => s.language === "fr")).toBe(true);
	});
});
