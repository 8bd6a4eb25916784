/**
 * How a meeting is named to a person: its title where it has one, else a readable
 * platform-and-code label ("Google Meet abc-defg-hij", "Zoom 123 4567 8901", "Microsoft Teams
 * meeting 19:meeting_NjA4…"), else, for a plan without a link, "Meeting without a link" and its
 * date. Never a bare record id. The dashboard's pages and the plain-text transcript header use
 * this one rule. Pure: no Worker or browser API. A title is untrusted: it is folded to one line
 * and bounded here, and rendered as text by every caller.
 */

import { isPlatform, PLATFORM_FACTS } from "../platforms/index.ts";
import { bounded, shortened } from "../platforms/link-parts.ts";

export interface LabelledMeeting {
	platform: string;
	native_meeting_id: string | null;
	data?: { title?: unknown; scheduled_at?: unknown } | null;
	created_at?: string | null;
}

/** The longest label shown: a title longer than this is cut with an ellipsis. */
export const MEETING_LABEL_MAX = 160;

export { platformName } from "../platforms/index.ts";

// Line breaks, other control characters and the Unicode line/paragraph separators: a title must stay one line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is folded
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** The meeting's title folded to one bounded line, or null when it has none. */
export function titleOf(meeting: Pick<LabelledMeeting, "data">): string | null {
	const title = meeting.data?.title;
	if (typeof title !== "string") return null;
	const line = title.replace(BREAKS, " ").replace(/\s+/g, " ").trim();
	return line ? bounded(line, MEETING_LABEL_MAX) : null;
}

/** `2026-11-26 09:00 UTC` from an ISO time, or null for one that does not parse. */
function utcMinute(iso: unknown): string | null {
	if (typeof iso !== "string") return null;
	const time = Date.parse(iso);
	if (Number.isNaN(time)) return null;
	return `${new Date(time).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** The platform and its code, readable: the label of a meeting with a link and no title. */
export function linkLabel(platform: string, nativeId: string): string {
	const id = nativeId.replace(BREAKS, " ").trim();
	return isPlatform(platform) ? PLATFORM_FACTS[platform].linkLabel(id) : `${bounded(platform, 20)} ${shortened(id)}`;
}

/** The meeting's name for people: title, else platform and code, else "Meeting without a link" and its date. */
export function meetingLabel(meeting: LabelledMeeting): string {
	const title = titleOf(meeting);
	if (title) return title;
	if (meeting.native_meeting_id && meeting.platform !== "unknown") return linkLabel(meeting.platform, meeting.native_meeting_id);
	const scheduled = utcMinute(meeting.data?.scheduled_at);
	if (scheduled) return `Meeting without a link, planned for ${scheduled}`;
	const created = utcMinute(meeting.created_at);
	return created ? `Meeting without a link, created ${created}` : "Meeting without a link";
}
