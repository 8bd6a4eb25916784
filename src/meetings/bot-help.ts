/**
 * What a meeting's data keeps of a bot that asked for help (`data.help`, while `needs_help`),
 * of its past help requests (`data.help_history`), and of what a failed bot saw last
 * (`data.diagnostics`). Everything here comes from a meeting page, which anyone in the meeting
 * can write: it is bounded and cleaned once, here, before it is stored.
 */

import {
	DIAGNOSTIC_STEP_MAX,
	DIAGNOSTIC_STEPS_MAX,
	type FailureDiagnostics,
	type HelpReport,
	PAGE_TEXT_MAX,
} from "../bot-channel/help-report";
import { linksWithoutSecrets } from "../bot-channel/protocol";
import type { HelpEpisode, HelpKind, ScreenshotRef, Diagnostics as StoredDiagnostics, Help as StoredHelp } from "../shapes/help";
import { sanitize } from "./failure-detail";

/** `data.help`, `data.help_history` and `data.diagnostics` as src/shapes/help.ts declares them. */
export type { Diagnostics as StoredDiagnostics, Help as StoredHelp, HelpEpisode } from "../shapes/help";

/** Past help requests a meeting keeps, the newest last. */
export const HELP_HISTORY_MAX = 5;

/** What a help request says when the bot gave no words of its own. */
const BY_KIND: Record<HelpKind, string> = {
	unknown_screen: "the bot is on a screen it does not recognise",
	layout_changed: "the bot cannot find the controls it needs: the page's layout changed",
	captcha: "the bot is stopped by a captcha",
	sign_in_required: "the meeting asks the bot to sign in",
	captions_unreadable: "people are heard in the meeting but the bot can read no captions",
};

/**
 * Whether a help request ends the meeting when nobody answers it (the room's `help` timer). Not a
 * bot that cannot read captions: it is in the call and still records, hears the chat and follows
 * who is there, so ending it would lose all that; its own automatic_leave limits still bound its stay.
 */
export function helpTimesOut(kind: HelpKind): boolean {
	return kind !== "captions_unreadable";
}

/** Bidirectional-text controls: they make shown text read other than it is. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f]/g;

/**
 * A page's visible text as it may be stored and shown: its lines kept, control characters and
 * bidi overrides gone, links without secrets, tokens redacted, at most PAGE_TEXT_MAX characters.
 * It is still attacker text: whoever renders it escapes it.
 */
export function pageText(text: string): string {
	const lines = text
		.replace(BIDI_CONTROLS, "")
		.split(/\r\n|\r|\n/)
		.map((line) =>
			redact(linksWithoutSecrets(line.replace(/\p{Cc}+/gu, " ")))
				.replace(/[ \t]+/g, " ")
				.trim(),
		)
		.join("\n")
		.replace(/\n{3,}/g, "\n\n")
		.trim();
	return lines.length > PAGE_TEXT_MAX ? `${lines.slice(0, PAGE_TEXT_MAX - 1)}…` : lines;
}

function redact(text: string): string {
	return text
		.replace(/\bBearer\s+[^\s"',;]+/gi, "Bearer [redacted]")
		.replace(/\bvxa_[A-Za-z0-9_-]+/g, "vxa_[redacted]")
		.replace(/\b(token|secret|password|api[_-]?key)(\s*[=:]\s*)[^\s"',;&]+/gi, "$1$2[redacted]");
}

/** One line of the driver's, cleaned as a failure's reason is, and bounded. */
function stepText(text: string): string {
	const said = sanitize(text.replace(BIDI_CONTROLS, ""));
	return said.length > DIAGNOSTIC_STEP_MAX ? `${said.slice(0, DIAGNOSTIC_STEP_MAX - 1)}…` : said;
}

/** A driver's page state is a word of its own (`unknown`, `prejoin`); anything else is not kept. */
const pageState = (state: string | null): string | null => (state && /^[a-z][a-z0-9_-]{0,39}$/.test(state) ? state : null);

/** `data.help` of a help request. `since` stays the first request's when the bot asks again while stuck. */
export function storedHelp(report: HelpReport, reason: string | undefined, since: string, screenshot: ScreenshotRef | null): StoredHelp {
	const said = reason?.trim() ? sanitize(reason.replace(BIDI_CONTROLS, "")) : "";
	return { kind: report.kind, reason: said || BY_KIND[report.kind], since, page_text: pageText(report.page_text), screenshot };
}

/** `data.diagnostics` of a bot's failure report; `at` is when the room took it. */
export function storedDiagnostics(report: FailureDiagnostics, at: string, screenshot: ScreenshotRef | null): StoredDiagnostics {
	return {
		steps: report.steps.slice(-DIAGNOSTIC_STEPS_MAX).map((s) => ({ at: s.at, step: stepText(s.step) })),
		page_state: pageState(report.page_state),
		page_text: pageText(report.page_text),
		screenshot,
		at,
	};
}

/** A meeting that fails while its bot asks for help keeps what the bot was stuck on as its diagnostics. */
export function diagnosticsFromHelp(help: StoredHelp, at: string): StoredDiagnostics {
	return { steps: [], page_state: help.kind, page_text: help.page_text, screenshot: help.screenshot, at };
}

/** The history with one more finished request, the oldest dropped past HELP_HISTORY_MAX. */
export function withEpisode(history: HelpEpisode[], help: StoredHelp, until: string): HelpEpisode[] {
	const episode: HelpEpisode = { kind: help.kind, reason: help.reason, since: help.since, until, screenshot: help.screenshot };
	return [...history, episode].slice(-HELP_HISTORY_MAX);
}
