import { z } from "@hono/zod-openapi";
import { HelpKind } from "../bot-channel/help-report";

/**
 * `data.help` and `data.diagnostics` as the owner sees them (docs/api.md#help-and-diagnostics):
 * what the meeting keeps, plus a screenshot link minted for this answer.
 */

const pageTextDoc = {
	description:
		"The meeting page's visible text (bounded, links without secrets): written by anyone in the meeting, so escape it where shown",
};

const Screenshot = z
	.object({ attempt: z.number().int(), name: z.string() })
	.nullable()
	.openapi({ description: "Which attempt's bot took the screenshot, and its name: what the meeting keeps" });

const ScreenshotUrl = z.string().nullable().openapi({
	description:
		"A link to the screenshot, signed by the gateway, valid for SCREENSHOT_LINK_TTL_S (300 s) from this answer; null without one",
});

export const MeetingHelp = z
	.object({
		kind: HelpKind,
		reason: z.string(),
		since: z.string().openapi({ description: "When the bot first asked for help" }),
		page_text: z.string().openapi(pageTextDoc),
		screenshot: Screenshot,
		screenshot_url: ScreenshotUrl,
	})
	.openapi("MeetingHelp", { description: "While `needs_help`: what the bot is stuck on" });

export const MeetingDiagnostics = z
	.object({
		steps: z.array(z.object({ at: z.string(), step: z.string() })).openapi({ description: "The driver's last steps, oldest first" }),
		page_state: z.string().nullable().openapi({ description: "What the driver took the page for (`unknown`, `prejoin`, ...)" }),
		page_text: z.string().openapi(pageTextDoc),
		screenshot: Screenshot,
		screenshot_url: ScreenshotUrl,
		at: z.string(),
	})
	.openapi("MeetingDiagnostics", { description: "On a failed meeting: what its bot saw last" });

export const HelpEpisode = z.object({
	kind: HelpKind,
	reason: z.string(),
	since: z.string(),
	until: z.string(),
	screenshot: Screenshot,
});
