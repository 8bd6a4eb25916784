/**
 * What a bot shows of the screen it is on, sent on its channel (docs/bot-channel.md#help-and-diagnostics):
 * a help request while it is stuck (`needs_help`), and diagnostics with a failure, each with the
 * page's visible text and a screenshot it uploaded first. Both sides import these schemas.
 */
import { z } from "zod";
import { Diagnostics, Help, DriverStep as StoredDriverStep } from "../shapes/help.ts";

export { HelpKind } from "../shapes/help.ts";

/** Longest page text a bot sends with a help request or a failure: what the page visibly says. */
export const PAGE_TEXT_MAX = 2000;
/** Largest screenshot a bot uploads (JPEG or PNG). */
export const SCREENSHOT_MAX_BYTES = 1_048_576;
/** A screenshot's name, as the bot uploads it to `<screenshot_upload_url>/<name>` and cites it. */
export const ScreenshotName = z.string().regex(/^[a-z0-9_-]{1,64}\.(jpg|png)$/, "1-64 of a-z 0-9 _ - then .jpg or .png");
/** How many of the driver's last steps a failure carries (the newest). */
export const DIAGNOSTIC_STEPS_MAX = 30;
export const DIAGNOSTIC_STEP_MAX = 300;

/**
 * What the bot sees while it asks for help; sent with `status: "needs_help"`. A projection of
 * the stored help (src/shapes/help.ts): the room adds the reason, the time and the attempt.
 */
export const HelpReport = Help.pick({ kind: true }).extend({
	/** The page's visible text, bounded; links without their secrets (linksWithoutSecrets). */
	page_text: z.string().max(PAGE_TEXT_MAX),
	/** A screenshot the bot uploaded first (its name; the room keeps it with the attempt); null when there is none. */
	screenshot: ScreenshotName.nullable(),
});
export type HelpReport = z.infer<typeof HelpReport>;

/** One thing the driver did or saw, e.g. "opened the join page", "typed the bot's name". */
export const DriverStep = StoredDriverStep.extend({ at: z.iso.datetime({ offset: true }), step: z.string().max(DIAGNOSTIC_STEP_MAX) });
export type DriverStep = z.infer<typeof DriverStep>;

/** What a bot saw last before it failed; sent with `status: "failed"`, so a failure is never a dead end. The room stamps `at`. */
export const FailureDiagnostics = Diagnostics.omit({ at: true }).extend({
	steps: z.array(DriverStep).max(DIAGNOSTIC_STEPS_MAX),
	/** What the page showed (`PageState` of the driver), e.g. "unknown", "prejoin". */
	page_state: z.string().max(40).nullable(),
	page_text: z.string().max(PAGE_TEXT_MAX),
	screenshot: ScreenshotName.nullable(),
});
export type FailureDiagnostics = z.infer<typeof FailureDiagnostics>;
