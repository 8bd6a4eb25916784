/**
 * Meeting links of the three platforms: parse a pasted link into platform, native id and
 * passcode, rebuild a joinable URL from them, and judge a native id sent on its own
 * (POST /bots takes `platform` + `native_meeting_id`, not a link).
 *
 * A pasted link is parsed strictly: only the link shapes each platform really hands out. A
 * native id sent on its own is not: the shape of an id does not predict whether the meeting
 * works (a bare-numeric Teams id of an unusual length has transcribed a real meeting), so it is
 * bounded only by length, control characters and the characters that would break the URL or
 * lookup key it is put into. The join itself decides whether the meeting exists.
 *
 * Canonical forms (what `constructMeetingUrl` builds):
 * - Meet:  https://meet.google.com/<id>                            (Meet has no passcode)
 * - Zoom:  https://zoom.us/j/<digits>[?pwd=<passcode>]             (zoom.us redirects to the
 *          account's own subdomain, so the regional/vanity subdomain need not be kept; a pasted
 *          link keeps its registrant token `tk`, and a zoom.com link is the same one on zoom.us)
 *          https://zoom.us/my/<personal link name>[?pwd=<passcode>] (any id that is not digits)
 * - Teams: https://teams.live.com/meet/<digits>[?p=<passcode>]     (the reference's form)
 *          https://teams.microsoft.com/l/meetup-join/<id>/0        (any id that is not digits)
 *
 * A parsed link can carry more than platform + id can express: a Teams link on an enterprise or
 * government host keeps that host, a zoomgov.com link stays on zoomgov.com, and a meetup-join
 * link keeps its message id and `context` (tenant and organizer, which anonymous joins need).
 * So a parsed link's `constructed_meeting_url` is the richest joinable URL, and
 * `constructMeetingUrl` is the best one that platform, id and passcode alone allow.
 */
import type { Platform } from "../bot-channel/protocol";

export interface ParsedMeetingLink {
	platform: Platform;
	native_meeting_id: string;
	passcode?: string;
	constructed_meeting_url: string;
}

/** The longest native id accepted (the reference's column width). */
export const NATIVE_MEETING_ID_MAX_LENGTH = 255;

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
const DIGITS = /^\d+$/;
const ZOOM_NUMERIC_ID = /^\d{9,11}$/;
// Zoom's rule for a Personal Link name: 5 to 40 characters, starts with a letter, then
// letters, digits and dots.
const ZOOM_VANITY = /^[a-z][a-z0-9.]{4,39}$/i;
const TEAMS_NUMERIC_ID = /^\d{10,15}$/;
// A Teams conversation (thread) id, e.g. 19:meeting_NjA4ZTk3@thread.v2 (channel meetings use
// thread.tacv2, older meetings thread.skype).
const TEAMS_THREAD_ID = /^19:[A-Za-z0-9_.=+-]+@thread\.(?:v2|tacv2|skype)$/;
const PASSCODE = /^[\x21-\x7e]{1,128}$/; // printable ASCII, no spaces: keeps rebuilt URLs sane
// The id becomes a URL path segment and the key of /bots/{platform}/{id}: these would cut it.
const URL_STRUCTURAL = /[?&=/#\s]/;

const ZOOM_HOME = "zoom.us";
/** Attendee (meeting_url_utils.py): zoom.com links are zoom.us links. */
const ZOOM_COM = "zoom.com";
/** A registrant token (`tk`) of a meeting or webinar that needs registration: printable, no spaces. */
const ZOOM_REGISTRANT_TOKEN = /^[\x21-\x7e]{1,512}$/;
const ZOOM_GOV = "zoomgov.com";
const TEAMS_WORK = "teams.microsoft.com";
const TEAMS_PERSONAL = "teams.live.com";
// Hosts of Teams work meetings: the commercial cloud, its web-app rename, and the US
// government clouds (GCC High, DoD). A link keeps its host: each cloud is its own service.
const TEAMS_WORK_HOSTS = new Set([TEAMS_WORK, "teams.cloud.microsoft", "gov.teams.microsoft.us", "dod.teams.microsoft.us"]);

/**
 * Why `id` cannot be used as a native meeting id, as a sentence naming the fix; null when it
 * can. Only length and characters are judged, never the platform's id format.
 */
export function nativeMeetingIdProblem(id: string): string | null {
	if (id.length === 0) return "native_meeting_id is empty: send the meeting's id, or send meeting_url instead";
	if (id.length > NATIVE_MEETING_ID_MAX_LENGTH) {
		return `native_meeting_id is ${id.length} characters; the maximum is ${NATIVE_MEETING_ID_MAX_LENGTH}`;
	}
	if (CONTROL_CHARACTER.test(id)) return "native_meeting_id contains control characters";
	if (URL_STRUCTURAL.test(id)) {
		return (
			"native_meeting_id must be the bare meeting id, without URL characters ('?', '&', '=', '/', '#') or spaces: " +
			"a Teams or Zoom passcode left on the id goes in `passcode`, or send the whole link as `meeting_url`"
		);
	}
	return null;
}

/** C0 controls, DEL and the C1 range (Unicode's Cc): never part of an id, and they break logs and lookups. */
const CONTROL_CHARACTER = /\p{Cc}/u;

/** A joinable URL from platform, native id and passcode; null when the id cannot be used. */
export function constructMeetingUrl(platform: Platform, nativeId: string, passcode?: string | null): string | null {
	if (nativeMeetingIdProblem(nativeId) !== null) return null;
	const code = validPasscode(passcode);
	switch (platform) {
		case "google_meet":
			return `https://meet.google.com/${encodeURIComponent(nativeId)}`;
		case "zoom":
			return zoomUrl(ZOOM_HOME, nativeId, code);
		case "teams":
			if (DIGITS.test(nativeId)) return teamsMeetUrl(TEAMS_PERSONAL, nativeId, code);
			return teamsMeetupUrl(TEAMS_WORK, nativeId, "0", null);
	}
}

/** Parses a pasted meeting link; null for anything that is not a joinable meeting link. */
export function parseMeetingLink(link: string): ParsedMeetingLink | null {
	const url = toUrl(link);
	if (!url) return null;
	const host = url.hostname;
	if (host === "meet.google.com") return parseMeet(url);
	if (host === ZOOM_HOME || host.endsWith(`.${ZOOM_HOME}`)) return parseZoom(url, ZOOM_HOME);
	if (host === ZOOM_COM || host.endsWith(`.${ZOOM_COM}`)) return parseZoom(url, ZOOM_HOME);
	if (host === ZOOM_GOV || host.endsWith(`.${ZOOM_GOV}`)) return parseZoom(url, ZOOM_GOV);
	if (host === TEAMS_PERSONAL || TEAMS_WORK_HOSTS.has(host)) return parseTeams(url);
	return null;
}

function toUrl(link: string): URL | null {
	const text = link.trim();
	if (text === "" || /\s/.test(text)) return null;
	// A link pasted without its scheme ("meet.google.com/abc-defg-hij") is common.
	const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`;
	try {
		const url = new URL(withScheme);
		if (url.protocol !== "https:" && url.protocol !== "http:") return null;
		if (url.username || url.password || url.port) return null;
		return url;
	} catch {
		return null;
	}
}

function pathSegments(url: URL): string[] {
	return url.pathname.split("/").filter((s) => s !== "");
}

function parseMeet(url: URL): ParsedMeetingLink | null {
	const segments = pathSegments(url);
	if (segments.length !== 1) return null; // /lookup/<name>, /landing/..., the home page
	const code = segments[0]!.toLowerCase();
	if (!MEET_CODE.test(code)) return null;
	return { platform: "google_meet", native_meeting_id: code, constructed_meeting_url: `https://meet.google.com/${code}` };
}

/** `home` is zoom.us or zoomgov.com: a subdomain may be dropped, the cloud may not. */
function parseZoom(url: URL, home: string): ParsedMeetingLink | null {
	const id = zoomLinkId(pathSegments(url));
	if (id === null) return null;
	const passcode = validPasscode(url.searchParams.get("pwd"));
	// Attendee keeps it: without it a registration-required meeting or webinar does not let the bot in.
	const token = url.searchParams.get("tk")?.trim();
	const joinable = zoomUrl(home, id, passcode);
	return {
		platform: "zoom",
		native_meeting_id: id,
		...(passcode ? { passcode } : {}),
		constructed_meeting_url: token && ZOOM_REGISTRANT_TOKEN.test(token) ? withQuery(joinable, "tk", token) : joinable,
	};
}

/** The meeting id in a Zoom link's path: a meeting number, or a Personal Link name under /my/. */
function zoomLinkId(s: string[]): string | null {
	if (s.length === 2 && s[0] === "my") {
		const vanity = s[1]!.toLowerCase();
		return ZOOM_VANITY.test(vanity) ? vanity : null;
	}
	let id: string | undefined;
	if (s.length === 2 && (s[0] === "j" || s[0] === "s" || s[0] === "w"))
		id = s[1]; // join, host start, webinar
	else if (s.length === 3 && s[0] === "wc" && s[2] === "join")
		id = s[1]; // web client
	else if (s.length === 3 && s[0] === "wc" && s[1] === "join") id = s[2]; // classic web client
	return id !== undefined && ZOOM_NUMERIC_ID.test(id) ? id : null;
}

function parseTeams(url: URL): ParsedMeetingLink | null {
	const s = pathSegments(url);
	if (s.length === 2 && s[0] === "meet") {
		const id = s[1]!;
		if (!TEAMS_NUMERIC_ID.test(id)) return null;
		const passcode = validPasscode(url.searchParams.get("p"));
		// Keep the host the link came from: work meetings live on the work (or government) cloud.
		const constructed = teamsMeetUrl(url.hostname, id, passcode);
		return { platform: "teams", native_meeting_id: id, ...(passcode ? { passcode } : {}), constructed_meeting_url: constructed };
	}
	if (!TEAMS_WORK_HOSTS.has(url.hostname)) return null;
	const meetup = meetupJoinTarget(url);
	if (meetup) return parseMeetupJoin(url.hostname, meetup);
	if (s.length === 2 && s[0] === "light-meetings" && s[1] === "launch") return parseLightMeeting(url);
	return null;
}

/** The `/l/meetup-join/...` path, found directly, behind the launcher, or in the fragment. */
function meetupJoinTarget(url: URL): URL | null {
	const candidates = [url.pathname + url.search];
	const launcherTarget = url.pathname === "/dl/launcher/launcher.html" ? url.searchParams.get("url") : null;
	if (launcherTarget) candidates.push(launcherTarget);
	if (url.hash) candidates.push(url.hash.slice(1));
	for (const candidate of candidates) {
		const at = candidate.indexOf("/l/meetup-join/");
		if (at >= 0) return new URL(candidate.slice(at), "https://teams.microsoft.com");
	}
	return null;
}

function parseMeetupJoin(host: string, target: URL): ParsedMeetingLink | null {
	// Only the raw path is split: the thread id is percent-encoded and may contain '/' once decoded.
	const raw = target.pathname.split("/").filter((p) => p !== "");
	if (raw.length < 3 || raw.length > 4) return null;
	const thread = safeDecode(raw[2]!);
	const messageId = raw[3] ?? "0";
	if (!thread || !TEAMS_THREAD_ID.test(thread) || !/^\d{1,20}$/.test(messageId)) return null;
	const context = teamsContext(target.searchParams.get("context"));
	return { platform: "teams", native_meeting_id: thread, constructed_meeting_url: teamsMeetupUrl(host, thread, messageId, context) };
}

/** `light-meetings/launch?coords=<base64 JSON>`: the same meeting, described in JSON. */
function parseLightMeeting(url: URL): ParsedMeetingLink | null {
	const coords = url.searchParams.get("coords");
	if (!coords) return null;
	let parsed: unknown;
	try {
		parsed = JSON.parse(atob(coords.replace(/[ -]/g, "+").replace(/_/g, "/"))); // "+" may arrive as a space
	} catch {
		return null;
	}
	if (!isRecord(parsed)) return null;
	const thread = parsed.conversationId;
	const messageId = typeof parsed.messageId === "string" ? parsed.messageId : "0";
	if (typeof thread !== "string" || !TEAMS_THREAD_ID.test(thread) || !/^\d{1,20}$/.test(messageId)) return null;
	const context: Record<string, string> = {};
	if (typeof parsed.tenantId === "string") context.Tid = parsed.tenantId;
	if (typeof parsed.organizerId === "string") context.Oid = parsed.organizerId;
	const ctx = Object.keys(context).length > 0 ? context : null;
	return { platform: "teams", native_meeting_id: thread, constructed_meeting_url: teamsMeetupUrl(url.hostname, thread, messageId, ctx) };
}

/** The meetup-join `context`: a JSON object of strings (Tid, Oid, ...); anything else dropped. */
function teamsContext(raw: string | null): Record<string, string> | null {
	if (!raw) return null;
	try {
		const parsed: unknown = JSON.parse(raw);
		if (!isRecord(parsed)) return null;
		const entries = Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string");
		return entries.length > 0 ? Object.fromEntries(entries) : null;
	} catch {
		return null;
	}
}

function zoomUrl(home: string, id: string, passcode: string | undefined): string {
	const path = DIGITS.test(id) ? `j/${id}` : `my/${encodeURIComponent(id)}`;
	return withQuery(`https://${home}/${path}`, "pwd", passcode);
}

function teamsMeetUrl(host: string, id: string, passcode: string | undefined): string {
	return withQuery(`https://${host}/meet/${encodeURIComponent(id)}`, "p", passcode);
}

function teamsMeetupUrl(host: string, thread: string, messageId: string, context: Record<string, string> | null): string {
	const base = `https://${host}/l/meetup-join/${encodeURIComponent(thread)}/${messageId}`;
	return context ? `${base}?context=${encodeURIComponent(JSON.stringify(context))}` : base;
}

function validPasscode(value: string | null | undefined): string | undefined {
	return value && PASSCODE.test(value) ? value : undefined;
}

function withQuery(base: string, key: string, value: string | undefined): string {
	return value ? `${base}${base.includes("?") ? "&" : "?"}${key}=${encodeURIComponent(value)}` : base;
}

function safeDecode(value: string): string | null {
	try {
		return decodeURIComponent(value);
	} catch {
		return null;
	}
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === "object" && value !== null && !Array.isArray(value);
}
