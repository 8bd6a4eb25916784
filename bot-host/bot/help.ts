/**
 * When a bot asks for help. A screen the driver does not recognise, a captcha or bot wall, a
 * sign-in wall, or a join screen whose join button cannot be found is not a failure at once
 * (captions that cannot be read in the call have their own rule: caption-watch.ts):
 * after a short grace (BOT_HELP_GRACE_S) the bot reports `needs_help` once, keeps watching, and
 * reports its live status again as soon as the page is recognised. It does not time itself out
 * of `needs_help`: the room does (its help timeout), by sending `leave`.
 */
import type { HelpKind } from "../../src/bot-channel/help-report.ts";
import type { PageState } from "../drivers/types.ts";

export const DEFAULT_HELP_GRACE_MS = 12_000;

/** What the page shows as a reason to ask for help, or null when the bot knows where it is. */
export function helpKindOf(state: PageState, joinButtonMissing: boolean): HelpKind | null {
	switch (state) {
		case "unknown":
			return "unknown_screen";
		case "bot_wall":
			return "captcha";
		case "sign_in_required":
			return "sign_in_required";
		case "prejoin":
			return joinButtonMissing ? "layout_changed" : null;
		default:
			return null;
	}
}

/** The help request's `reason`, in words a user can act on. */
export const HELP_REASONS: Record<HelpKind, string> = {
	unknown_screen: "the page shows a screen the bot does not recognise",
	layout_changed: "the join screen is there but the bot cannot find its join button (the platform may have changed its layout)",
	captcha: "the platform asks for a captcha or a bot check",
	sign_in_required: "the platform asks the bot to sign in",
	captions_unreadable:
		"people are heard in the meeting but the bot can read no captions (the page may have changed, or captions are off or not available); it stays in the call",
};

export type HelpMove = "ask" | "recovered" | null;

/** One episode at a time: stuck since the first unrecognised reading, asked once, recovered once. */
export class HelpWatch {
	private readonly graceMs: number;
	private stuckSince: number | null = null;
	private asked: HelpKind | null = null;

	constructor(graceMs: number) {
		this.graceMs = graceMs;
	}

	/** The kind the bot asked for help about, while it waits for it. */
	get asking(): HelpKind | null {
		return this.asked;
	}

	/** One reading of the page: `ask` once the grace has passed, `recovered` when a reported episode ends. */
	observe(kind: HelpKind | null, now: number): HelpMove {
		if (kind === null) {
			this.stuckSince = null;
			if (this.asked === null) return null;
			this.asked = null;
			return "recovered";
		}
		this.stuckSince ??= now;
		if (this.asked === null && now - this.stuckSince >= this.graceMs) {
			this.asked = kind;
			return "ask";
		}
		return null;
	}
}
