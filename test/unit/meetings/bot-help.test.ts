import { describe, expect, it } from "vitest";
import { DIAGNOSTIC_STEP_MAX, PAGE_TEXT_MAX } from "../../../src/bot-channel/help-report";
import {
	diagnosticsFromHelp,
	HELP_HISTORY_MAX,
	pageText,
	storedDiagnostics,
	storedHelp,
	withEpisode,
} from "../../../src/meetings/bot-help";

const at = "2026-11-26T01:00:00.000Z";

describe("what a meeting keeps of a bot's help request and diagnostics", () => {
	it("keeps a page's lines, without control or bidi characters, secrets in links, tokens or runs of blank lines", () => {
		const page =
			"Join now\r\n\r\n\r\n\r\nBearer abc.def  vxa_bot_secret \u202Eevil\u2066 password: hunter2\nhttps://u:p@meet.example/j/1?pwd=x#frag \u0000done";
		expect(pageText(page)).toBe("Join now\n\nBearer [redacted] vxa_[redacted] evil password: [redacted]\nhttps://meet.example/j/1 done");
	});

	it("bounds page text and each driver step", () => {
		expect(pageText("a".repeat(PAGE_TEXT_MAX + 50))).toHaveLength(PAGE_TEXT_MAX);
		const d = storedDiagnostics(
			{ steps: [{ at, step: "b ".repeat(DIAGNOSTIC_STEP_MAX) }], page_state: "Prejoin!", page_text: "", screenshot: null },
			at,
			null,
		);
		expect(d.steps[0]?.step.length).toBeLessThanOrEqual(DIAGNOSTIC_STEP_MAX);
		expect(d.page_state).toBeNull();
		expect(storedDiagnostics({ steps: [], page_state: "prejoin", page_text: "", screenshot: null }, at, null).page_state).toBe("prejoin");
	});

	it("says why by kind when the bot gave no reason, and keeps the first request's time", () => {
		const help = storedHelp({ kind: "layout_changed", page_text: "x", screenshot: "a.jpg" }, "  ", at, { attempt: 2, name: "a.jpg" });
		expect(help).toEqual({
			kind: "layout_changed",
			reason: "the bot cannot find the controls it needs: the page's layout changed",
			since: at,
			page_text: "x",
			screenshot: { attempt: 2, name: "a.jpg" },
		});
		expect(diagnosticsFromHelp(help, "later")).toEqual({
			steps: [],
			page_state: "layout_changed",
			page_text: "x",
			screenshot: help.screenshot,
			at: "later",
		});
	});

	it(`files at most ${HELP_HISTORY_MAX} finished requests, the oldest dropped`, () => {
		let history: ReturnType<typeof withEpisode> = [];
		for (let i = 0; i < HELP_HISTORY_MAX + 2; i++) {
			history = withEpisode(history, storedHelp({ kind: "captcha", page_text: "", screenshot: null }, `r${i}`, at, null), `u${i}`);
		}
		expect(history.map((e) => e.reason)).toEqual(["r2", "r3", "r4", "r5", "r6"]);
		expect(history[0]).toEqual({ kind: "captcha", reason: "r2", since: at, until: "u2", screenshot: null });
	});
});
