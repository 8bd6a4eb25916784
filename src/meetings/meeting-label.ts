/**
 * How a meeting is named to a person: its title where it has one, else a readable
 * platform-and-code label ("Google Meet abc-defg-hij", "Zoom 123 4567 8901", "Microsoft Teams
 * meeting 19:meeting_NjA4…"), else, for a plan without a link, "Meeting without a link" and its
 * date. Never a bare record id. The dashboard's pages and the plain-text transcript header use
 * this one rule. Pure: no Worker or browser API. A title is untrusted: it is folded to one line
 * and bounded here, and rendered as text by every caller.
 */

export interface LabelledMeeting {
	platform: string;
	native_meeting_id: string | null;
	data?: { title?: unknown; scheduled_at?: unknown } | null;
	created_at?: string | null;
}

/** The longest label shown: a title longer than this is cut with an ellipsis. */
export const MEETING_LABEL_MAX = 160;

const PLATFORM_NAMES: Record<string, string> = { google_meet: "Google Meet", zoom: "Zoom", teams: "Microsoft Teams" };

/** The platform's product name, or the platform code as it came for one this service does not name. */
export function platformName(platform: string): string {
	return PLATFORM_NAMES[platform] ?? platform;
}

// Line breaks, other control characters and the Unicode line/paragraph separators: a title must stay one line.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is folded
const BREAKS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

function bounded(text: string, max: number): string {
	const chars = [...text];
	return chars.length > max
		? `${chars
				.slice(0, max - 1)
				.join("")
				.trimEnd()}…`
		: text;
}

/** The meeting's title folded to one bounded line, or null when it has none. */
export function titleOf(meeting: Pick<LabelledMeeting, "data">): string | null {
	const title = meeting.data?.title;
	if (typeof title !== "string") return null;
	const line = title.replace(BREAKS, " ").replace(/\s+/g, " ").trim();
	return line ? bounded(line, MEETING_LABEL_MAX) : null;
}

/** Zoom's own grouping of a numeric meeting id: 3-3-3, 3-3-4 or 3-4-4 digits. */
function zoomGroups(id: string): string {
	if (!/^\d{9,11}$/.test(id)) return id;
	const tail = id.length === 11 ? 4 : id.length === 10 ? 4 : 3;
	const middle = id.length - 3 - tail;
	return `${id.slice(0, 3)} ${id.slice(3, 3 + middle)} ${id.slice(3 + middle)}`;
}

/** A long id (a Teams thread id runs past 50 characters) shortened to its start and end. */
function shortened(id: string, max = 24): string {
	const chars = [...id];
	return chars.length > max ? `${chars.slice(0, max - 8).join("")}…${chars.slice(-6).join("")}` : id;
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
	switch (platform) {
		case "google_meet":
			return `Google Meet ${bounded(id, 40)}`;
		case "zoom":
			return `Zoom ${bounded(zoomGroups(id), 40)}`;
		case "teams":
			return `Microsoft Teams meeting ${shortened(id)}`;
		default:
			return `${bounded(platform, 20)} ${shortened(id)}`;
	}
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
