/**
 * Meeting links of the three platforms: parse a pasted link into platform, native id and
 * passcode, rebuild a joinable URL from them, and validate a native id sent on its own
 * (POST /bots takes `platform` + `native_meeting_id`, not a link).
 *
 * Canonical forms (what `constructMeetingUrl` builds):
 * - Meet:  https://meet.google.com/<abc-defg-hij>                 (Meet has no passcode)
 * - Zoom:  https://zoom.us/j/<digits>[?pwd=<passcode>]             (zoom.us redirects to the
 *          account's own subdomain, so the regional/vanity subdomain need not be kept)
 *          https://zoom.us/my/<personal link name>[?pwd=<passcode>]
 * - Teams: https://teams.live.com/meet/<digits>[?p=<passcode>]     (the reference's form)
 *          https://teams.microsoft.com/l/meetup-join/<thread>/0
 *
 * A parsed link can carry more than platform + id can express: a Teams `/meet/` link on
 * teams.microsoft.com keeps that host, and a meetup-join link keeps its message id and
 * `context` (tenant and organizer, which anonymous joins need). So a parsed link's
 * `constructed_meeting_url` is the richest joinable URL, and `constructMeetingUrl` is the best
 * one that platform, id and passcode alone allow.
 */
import type { Platform } from "../bot-channel/protocol";

export interface ParsedMeetingLink {
	platform: Platform;
	native_meeting_id: string;
	passcode?: string;
	constructed_meeting_url: string;
}

const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;
const ZOOM_NUMERIC_ID = /^\d{9,11}$/;
// Zoom's rule for a Personal Link name: 5 to 40 characters, starts with a letter, then
// letters, digits and dots.
const ZOOM_VANITY = /^[a-z][a-z0-9.]{4,39}$/i;
const TEAMS_NUMERIC_ID = /^\d{10,15}$/;
// A Teams conversation (thread) id, e.g. 19:meeting_NjA4ZTk3@thread.v2 (channel meetings use
// thread.tacv2, older meetings thread.skype).
const TEAMS_THREAD_ID = /^19:[A-Za-z0-9_.=+-]+@thread\.(?:v2|tacv2|skype)$/;
const PASSCODE = /^[\x21-\x7e]{1,128}$/; // printable ASCII, no spaces: keeps rebuilt URLs sane

/** Whether `id` is a well-formed native meeting id for `platform` (no normalization). */
export function validateNativeMeetingId(platform: Platform, id: string): boolean {
	switch (platform) {
		case "google_meet":
			return MEET_CODE.test(id);
		case "zoom":
			return ZOOM_NUMERIC_ID.test(id) || ZOOM_VANITY.test(id);
		case "teams":
			return TEAMS_NUMERIC_ID.test(id) || TEAMS_THREAD_ID.test(id);
	}
}

/** A joinable URL from platform, native id and passcode; null when the id is not valid. */
export function constructMeetingUrl(platform: Platform, nativeId: string, passcode?: string | null): string | null {
	if (!validateNativeMeetingId(platform, nativeId)) return null;
	const code = passcode && PASSCODE.test(passcode) ? passcode : undefined;
	switch (platform) {
		case "google_meet":
			return `https://meet.google.com/${nativeId}`;
		case "zoom": {
			const path = ZOOM_NUMERIC_ID.test(nativeId) ? `j/${nativeId}` : `my/${nativeId}`;
			return withQuery(`https://zoom.us/${path}`, "pwd", code);
		}
		case "teams":
			if (TEAMS_NUMERIC_ID.test(nativeId)) return withQuery(`https://teams.live.com/meet/${nativeId}`, "p", code);
			return teamsMeetupUrl(nativeId, "0", null);
	}
}

/** Parses a pasted meeting link; null for anything that is not a joinable meeting link. */
export function parseMeetingLink(link: string): ParsedMeetingLink | null {
	const url = toUrl(link);
	if (!url) return null;
	const host = url.hostname;
	if (host === "meet.google.com") return parseMeet(url);
	if (host === "zoom.us" || host.endsWith(".zoom.us")) return parseZoom(url);
	if (host === "teams.microsoft.com" || host === "teams.live.com") return parseTeams(url);
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
	return build("google_meet", code);
}

function parseZoom(url: URL): ParsedMeetingLink | null {
	const s = pathSegments(url);
	let id: string | undefined;
	if (s.length === 2 && (s[0] === "j" || s[0] === "s" || s[0] === "w"))
		id = s[1]; // join, host start, webinar
	else if (s.length === 3 && s[0] === "wc" && s[2] === "join")
		id = s[1]; // web client
	else if (s.length === 3 && s[0] === "wc" && s[1] === "join")
		id = s[2]; // classic web client
	else if (s.length === 2 && s[0] === "my") {
		const vanity = s[1]!.toLowerCase();
		if (!ZOOM_VANITY.test(vanity)) return null;
		return build("zoom", vanity, url.searchParams.get("pwd"));
	}
	if (id === undefined || !ZOOM_NUMERIC_ID.test(id)) return null;
	return build("zoom", id, url.searchParams.get("pwd"));
}

function parseTeams(url: URL): ParsedMeetingLink | null {
	const s = pathSegments(url);
	if (s.length === 2 && s[0] === "meet") {
		const id = s[1]!;
		if (!TEAMS_NUMERIC_ID.test(id)) return null;
		const passcode = validPasscode(url.searchParams.get("p"));
		// Keep the host the link came from: work meetings live on teams.microsoft.com.
		const constructed = withQuery(`https://${url.hostname}/meet/${id}`, "p", passcode);
		return { platform: "teams", native_meeting_id: id, ...(passcode ? { passcode } : {}), constructed_meeting_url: constructed };
	}
	if (url.hostname !== "teams.microsoft.com") return null;
	const meetup = meetupJoinTarget(url);
	if (meetup) return parseMeetupJoin(meetup);
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

function parseMeetupJoin(target: URL): ParsedMeetingLink | null {
	// Only the raw path is split: the thread id is percent-encoded and may contain '/' once decoded.
	const raw = target.pathname.split("/").filter((p) => p !== "");
	if (raw.length < 3 || raw.length > 4) return null;
	const thread = safeDecode(raw[2]!);
	const messageId = raw[3] ?? "0";
	if (!thread || !TEAMS_THREAD_ID.test(thread) || !/^\d{1,20}$/.test(messageId)) return null;
	const context = teamsContext(target.searchParams.get("context"));
	return { platform: "teams", native_meeting_id: thread, constructed_meeting_url: teamsMeetupUrl(thread, messageId, context) };
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
	return { platform: "teams", native_meeting_id: thread, constructed_meeting_url: teamsMeetupUrl(thread, messageId, ctx) };
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

function teamsMeetupUrl(thread: string, messageId: string, context: Record<string, string> | null): string {
	const base = `https://teams.microsoft.com/l/meetup-join/${encodeURIComponent(thread)}/${messageId}`;
	return context ? `${base}?context=${encodeURIComponent(JSON.stringify(context))}` : base;
}

function build(platform: Platform, nativeId: string, passcode?: string | null): ParsedMeetingLink | null {
	if (!validateNativeMeetingId(platform, nativeId)) return null;
	const code = validPasscode(passcode);
	const constructed = constructMeetingUrl(platform, nativeId, code);
	if (!constructed) return null;
	return { platform, native_meeting_id: nativeId, ...(code ? { passcode: code } : {}), constructed_meeting_url: constructed };
}

function validPasscode(value: string | null | undefined): string | undefined {
	return value && PASSCODE.test(value) ? value : undefined;
}

function withQuery(base: string, key: string, value: string | undefined): string {
	return value ? `${base}?${key}=${encodeURIComponent(value)}` : base;
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
