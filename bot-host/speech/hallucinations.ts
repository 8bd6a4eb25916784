/**
 * Lines whisper is known to produce from silence, music or noise (its training subtitles'
 * credits and sign-offs), in the languages they are reported in. A segment that is only one of
 * them, or only a bracketed sound tag ("[BLANK_AUDIO]", "(music)"), is dropped: the voice gate
 * keeps most silence away, and this catches what slips through.
 */
const LINES = [
	"you",
	"thank you",
	"thank you very much",
	"thanks for watching",
	"thank you for watching",
	"thank you so much for watching",
	"thanks for watching and see you next time",
	"please subscribe",
	"please like and subscribe",
	"subtitles by the amara.org community",
	"bye",
	"sous-titres réalisés par la communauté d'amara.org",
	"sous-titrage st' 501",
	"untertitel der amara.org-community",
	"untertitel im auftrag des zdf, 2021",
	"subtítulos realizados por la comunidad de amara.org",
	"gracias por ver el video",
	"sottotitoli creati dalla comunità amara.org",
	"продолжение следует",
	"субтитры сделал dimatorzok",
	"субтитры создавал dimatorzok",
	"字幕由amara.org社区提供",
	"请不吝点赞 订阅 转发 打赏支持明镜与点点栏目",
	"ご視聴ありがとうございました",
	"시청해주셔서 감사합니다",
];

const KNOWN = new Set(LINES);

/** Lower case, without the punctuation and spaces around it. */
function normalised(text: string): string {
	return text
		.trim()
		.toLowerCase()
		.replace(/^[\s"'“”‘’.,!?…。！？-]+|[\s"'“”‘’.,!?…。！？-]+$/g, "");
}

/** Whether a segment's text is nothing but a known silence line or a sound tag. */
export function isHallucination(text: string): boolean {
	const line = normalised(text);
	return line === "" || KNOWN.has(line) || /^(\[[^\]]*\]|\([^)]*\)|♪+|\*[^*]*\*)(\s*(\[[^\]]*\]|\([^)]*\)|♪+|\*[^*]*\*))*$/.test(line);
}
