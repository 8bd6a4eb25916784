/**
 * Content presented to a meeting as a real screen share. Two facts per platform: what a guest
 * may do (the registry's `screenShare`, from which POST .../screen plans its answer), and the
 * page's share control as the bot finds it (each page.ts's `share`). Pure data: the Worker,
 * the bot host and the docs read it.
 */
import type { UiTexts } from "./page-facts.ts";

/** How shared content reaches the meeting: the platform's own screen share, or the bot's camera. */
export const PRESENTATIONS = ["screen_share", "camera"] as const;
export type PresentedAs = (typeof PRESENTATIONS)[number];

/**
 * What a bot that joins as a guest may do with the platform's share control:
 * - `guest_can_share`: guests present unless the host turned presenting off (Meet's host
 *   controls leave "Share their screen" on by default);
 * - `host_permits`: only when the host's settings allow it (Zoom's "Who can share", Teams'
 *   "Who can present" for an anonymous attendee), so a fallback to the camera is common;
 * - `camera_only`: the platform gives a guest no share control at all.
 */
export type GuestScreenShare = "guest_can_share" | "host_permits" | "camera_only";

/**
 * How content posted to POST .../screen is planned to reach the meeting, before the bot tries:
 * a screen share wherever a guest may have the right, the camera where none can. The event
 * `screen.sharing_started` then says what really happened.
 */
export function plannedPresentation(ability: GuestScreenShare): PresentedAs {
	return ability === "camera_only" ? "camera" : "screen_share";
}

/** The page's share control, as the bot presses it and learns the answer. */
export interface ShareFacts {
	/** The control that starts presenting (ordered fallbacks); absent means the guest may not share. */
	start: readonly string[];
	/** What to present when the control opens a menu first (older Meet's "Present now"): the whole screen, else a tab. */
	choices: UiTexts;
	/** The control that stops presenting, pressed when the page still shows it after the shared stream ended. */
	stop: readonly string[];
	stopTexts: UiTexts;
	/** The platform's notice that sharing was refused (the host disabled it), read only inside `refusalWithin`. */
	refusal: UiTexts;
	refusalWithin: readonly string[];
}
