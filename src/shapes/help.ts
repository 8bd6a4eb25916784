/**
 * Help and diagnostics, declared once (docs/api.md#help-and-diagnostics): what a meeting keeps
 * of a bot that asks for help (`data.help`, `data.help_history`) and of what a failed bot saw
 * last (`data.diagnostics`). The bot channel's reports (src/bot-channel/help-report.ts) and the
 * owner's view with a screenshot link (`HelpView`, shown by REST and /ws from src/live/frames.ts) are
 * projections of these. Imports only zod.
 */
import { z } from "zod";

/**
 * Why a bot asks for help (`needs_help`): a screen its driver does not recognise, a join
 * screen whose controls are not where the driver looks (the platform changed its layout), a
 * captcha or bot wall, a sign-in wall it cannot pass, or, in the call, people heard talking
 * while no caption can be read (`captions_unreadable`: the bot stays in the call).
 */
export const HelpKind = z.enum(["unknown_screen", "layout_changed", "captcha", "sign_in_required", "captions_unreadable"]);
export type HelpKind = z.infer<typeof HelpKind>;

/** What a meeting's data keeps of a screenshot: which attempt's bot uploaded it, under which name. */
export const ScreenshotRef = z.object({ attempt: z.number().int(), name: z.string() });
export type ScreenshotRef = z.infer<typeof ScreenshotRef>;

const screenshot = ScreenshotRef.nullable().describe("Which attempt's bot took the screenshot, and its name: what the meeting keeps");
const pageText = z
	.string()
	.describe("The meeting page's visible text (bounded, links without secrets): written by anyone in the meeting, so escape it where shown");

/** One thing the driver did or saw, e.g. "opened the join page", "typed the bot's name". */
export const DriverStep = z.object({ at: z.string(), step: z.string() });
export type DriverStep = z.infer<typeof DriverStep>;

/** `data.help`: what the bot is stuck on, since when. Its page text is attacker-controlled. */
export const Help = z.object({
	kind: HelpKind,
	reason: z.string(),
	since: z.string().describe("When the bot first asked for help"),
	page_text: pageText,
	screenshot,
});
export type Help = z.infer<typeof Help>;

/** One finished help request in `data.help_history`: its page text is not kept. */
export const HelpEpisode = Help.omit({ page_text: true }).extend({ until: z.string() });
export type HelpEpisode = z.infer<typeof HelpEpisode>;

/** `data.diagnostics`: the driver's last steps, the page it was on, its text and a screenshot. */
export const Diagnostics = z.object({
	steps: z.array(DriverStep).describe("The driver's last steps, oldest first"),
	page_state: z.string().nullable().describe("What the driver took the page for (`unknown`, `prejoin`, ...)"),
	page_text: pageText,
	screenshot,
	at: z.string(),
});
export type Diagnostics = z.infer<typeof Diagnostics>;

/** What the owner sees of either: the stored shape plus a short-lived link to its screenshot (null without one). */
export const withScreenshotUrl = {
	screenshot_url: z
		.string()
		.nullable()
		.describe(
			"A link to the screenshot, signed by the gateway, valid for SCREENSHOT_LINK_TTL_S (300 s) from this answer; null without one",
		),
};
export const HelpView = Help.extend(withScreenshotUrl);
export type HelpView = z.infer<typeof HelpView>;
export const DiagnosticsView = Diagnostics.extend(withScreenshotUrl);
export type DiagnosticsView = z.infer<typeof DiagnosticsView>;
