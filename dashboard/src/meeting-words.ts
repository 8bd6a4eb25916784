/**
 * How the pages name a meeting and its link, and which statuses are live. The words of its codes
 * (statuses, how it ended) are in words/. Pure; every value it returns is rendered as text.
 */
import { type LabelledMeeting, meetingLabel, platformName } from "../../src/meetings/meeting-label";
import { LIVE_STATUSES } from "../../src/meetings/statuses";

/** The platform's product name; a plan's `unknown` platform is "no link". */
export function platformWords(platform: string): string {
	return platform === "unknown" ? "no link" : platformName(platform);
}

/**
 * What every page calls a meeting: its title, else its platform and code ("Google Meet
 * abc-defg-hij"), else "Meeting without a link" and its date; never its record id. The same rule
 * names the meeting in the plain-text transcript (src/meetings/meeting-label.ts).
 */
export function meetingTitle(meeting: LabelledMeeting): string {
	return meetingLabel(meeting);
}

/** Every status a meeting can be live in (the status machine's list): Stop and the interactive forms apply to these. */
export { LIVE_STATUSES };

export function isLive(status: string): boolean {
	return (LIVE_STATUSES as readonly string[]).includes(status);
}

/** `url` when it is an http(s) address, else null: a meeting's link is untrusted, so a `javascript:` one never becomes an href. */
export function httpUrl(url: string | null | undefined): string | null {
	if (!url) return null;
	try {
		const parsed = new URL(url);
		return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
	} catch {
		return null;
	}
}
