/**
 * The language codes whisper knows (whisper.cpp's g_lang, in its token order): a request or
 * stream naming another is refused before it reaches the model, which would fail on it.
 */
const CODES =
	"en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue";

export const WHISPER_LANGUAGES: ReadonlySet<string> = new Set(CODES.split(" "));

/** Whether a value is a language whisper can be told: a known code, or null (detect). */
export function isWhisperLanguage(value: unknown): value is string | null {
	return value === null || (typeof value === "string" && WHISPER_LANGUAGES.has(value));
}

/**
 * The code to tell whisper for a meeting's language: its primary subtag when whisper knows it
 * (`pt-BR` → `pt`), else null, so that whisper detects rather than refuses.
 */
export function whisperLanguage(language: string | null): string | null {
	const primary = language?.trim().toLowerCase().split(/[-_]/)[0] ?? "";
	return WHISPER_LANGUAGES.has(primary) ? primary : null;
}
