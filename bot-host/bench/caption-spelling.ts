/**
 * What correcting captions to a vocabulary costs a bot (`npm run bench -- caption-spelling`; alone:
 * `node bot-host/bench/caption-spelling.ts`). The caption tracker corrects an entry's whole text at
 * every change, so the figure is the time of one correction of a caption of 200, 2,000 and
 * 10,000 characters (the longest segment text), with a vocabulary of 100 two-word names (the
 * merged list's cap, each name's parts counted as entries too) and with one entry. Figures only.
 */
import { captionSpeller } from "../bot/transcription/vocabulary.ts";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
const NAMES = Array.from({ length: 100 }, (_, i) => {
	const first = `${(LETTERS[i % 26] ?? "a").toUpperCase()}ernandez${LETTERS[(i * 7) % 26]}`;
	return `${first} ${(LETTERS[(i * 3) % 26] ?? "a").toUpperCase()}ovak${i}`;
});
/** A meeting's words, one of them a name a few letters off. */
const SAID = "we talked about the rollout and then Bernandezh said the operator was ready for review today".split(" ");

function caption(chars: number): string {
	let text = "";
	for (let i = 0; text.length < chars; i++) text += `${SAID[i % SAID.length]} `;
	return text.slice(0, chars);
}

/** Mean milliseconds of one correction, over about half a second of them. */
function msPerCorrection(spell: (text: string) => string, text: string): number {
	const started = performance.now();
	let runs = 0;
	while (performance.now() - started < 500) {
		spell(text);
		runs++;
	}
	return (performance.now() - started) / runs;
}

export function runCaptionSpellingBench(): void {
	console.log("\n## Caption spelling (one correction of a caption entry's whole text)");
	console.log("| vocabulary | 200 chars | 2,000 chars | 10,000 chars |");
	console.log("|---|---|---|---|");
	for (const [label, vocabulary] of [
		["100 names", NAMES],
		["1 entry", ["Siobhán O'Neill"]],
	] as const) {
		const spell = captionSpeller(vocabulary);
		const cells = [200, 2_000, 10_000].map((chars) => `${msPerCorrection(spell, caption(chars)).toFixed(2)} ms`);
		console.log(`| ${label} | ${cells.join(" | ")} |`);
	}
}

if (import.meta.url === `file://${process.argv[1]}`) runCaptionSpellingBench();
