/**
 * The language of caption text, for caption segments of a meeting that forces none. The
 * platforms' caption lines carry no language the page shows (the caption language is a
 * setting in each platform's own menus, which the bot does not read), so it is read from the
 * text itself: a script only one common language writes, or enough of one language's most
 * frequent words. Null when the text does not say (a short line, names, numbers, a language
 * not listed here): a segment then carries no language rather than a guess.
 */

/** Scripts written by one common language each. */
const SCRIPTS: readonly [RegExp, string][] = [
	[/[\u3040-\u30ff]/u, "ja"], // kana: Japanese, whatever Han it mixes in
	[/[\uac00-\ud7af\u1100-\u11ff]/u, "ko"],
	[/[\u0e00-\u0e7f]/u, "th"],
	[/[\u0370-\u03ff]/u, "el"],
	[/[\u0590-\u05ff]/u, "he"],
	[/[\u10a0-\u10ff]/u, "ka"],
	[/[\u0530-\u058f]/u, "hy"],
];
const HAN = /[\u4e00-\u9fff]/u;

/** Each language's most frequent function words; words several languages share count for each. */
const FUNCTION_WORDS: Record<string, readonly string[]> = {
	en: "the and is are was were you that this it of to in have for with what we they not be on at will can would there just so but do my your our about".split(
		" ",
	),
	es: "el los las que de y es en un una por para con no lo se del al pero como muy está estoy son también hay yo qué porque esto eso".split(
		" ",
	),
	fr: "le les des et est une un je vous nous il elle que qui pas pour dans sur avec ce cette c'est au du mais ne on très aussi oui ça suis".split(
		" ",
	),
	de: "der die das und ist nicht ich du wir sie es ein eine zu mit auf für den dem auch aber wie was noch sind war haben hat ja nein bitte schon".split(
		" ",
	),
	it: "il lo gli della che di e è un una per non con sono ma come anche questo questa perché molto io noi voi ci si del alla ho hai ha".split(
		" ",
	),
	pt: "o os as que de e é um uma não com para por em do da dos das mas como eu você nós isso isto está são também muito sim".split(" "),
	nl: "de het een en is niet ik je wij we zijn van dat die op te met voor maar ook wat er hij zij dit nog heb heeft wel geen".split(" "),
};
const WORD_SETS = Object.entries(FUNCTION_WORDS).map(([language, words]) => [language, new Set(words)] as const);

/** Fewer words than this say too little to tell languages apart. */
const MIN_WORDS = 3;
/** The leading language needs this many function words, and twice as many as the next. */
const MIN_HITS = 2;

/** The ISO 639-1 code of the text's language, or null when the text does not say. */
export function captionLanguage(text: string): string | null {
	for (const [script, language] of SCRIPTS) if (script.test(text)) return language;
	if (HAN.test(text)) return "zh";
	const words = text.toLowerCase().match(/[\p{L}']+/gu) ?? [];
	if (words.length < MIN_WORDS) return null;
	const scores = WORD_SETS.map(([language, set]) => [language, words.filter((w) => set.has(w)).length] as const).sort(
		(a, b) => b[1] - a[1],
	);
	const [best, next] = scores;
	if (!best || best[1] < MIN_HITS || best[1] < 2 * (next?.[1] ?? 0)) return null;
	return best[0];
}
