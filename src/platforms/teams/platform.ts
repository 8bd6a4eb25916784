/**
 * Microsoft Teams: `https://teams.live.com/meet/<digits>?p=<passcode>` (the reference's form; work
 * meetings on teams.microsoft.com use the same `/meet/` shape), and work meetings'
 * `/l/meetup-join/<thread>/<message>?context={Tid,Oid}` links, directly, behind the launcher,
 * in the fragment, or described in JSON by `light-meetings/launch?coords=`. A link keeps its
 * host: each cloud (commercial, its web-app rename, the US government clouds) is its own service,
 * and a meetup-join link keeps its message id and `context` (anonymous joins need the tenant).
 */
import { isRecord, pathSegments, safeDecode, shortened, validPasscode, withQuery } from "../link-parts.ts";
import type { ParsedMeetingLink, PlatformFacts } from "../platform-facts.ts";

const DIGITS = /^\d+$/;
const TEAMS_NUMERIC_ID = /^\d{10,15}$/;
// A Teams conversation (thread) id, e.g. 19:meeting_NjA4ZTk3@thread.v2 (channel meetings use
// thread.tacv2, older meetings thread.skype).
const TEAMS_THREAD_ID = /^19:[A-Za-z0-9_.=+-]+@thread\.(?:v2|tacv2|skype)$/;
const TEAMS_WORK = "teams.microsoft.com";
const TEAMS_PERSONAL = "teams.live.com";
const TEAMS_WORK_HOSTS = new Set([TEAMS_WORK, "teams.cloud.microsoft", "gov.teams.microsoft.us", "dod.teams.microsoft.us"]);

function teamsMeetUrl(host: string, id: string, passcode: string | undefined): string {
	return withQuery(`https://${host}/meet/${encodeURIComponent(id)}`, "p", passcode);
}

function teamsMeetupUrl(host: string, thread: string, messageId: string, context: Record<string, string> | null): string {
	const base = `https://${host}/l/meetup-join/${encodeURIComponent(thread)}/${messageId}`;
	return context ? `${base}?context=${encodeURIComponent(JSON.stringify(context))}` : base;
}

/** The `/l/meetup-join/...` path, found directly, behind the launcher, or in the fragment. */
function meetupJoinTarget(url: URL): URL | null {
	const candidates = [url.pathname + url.search];
	const launcherTarget = url.pathname === "/dl/launcher/launcher.html" ? url.searchParams.get("url") : null;
	if (launcherTarget) candidates.push(launcherTarget);
	if (url.hash) candidates.push(url.hash.slice(1));
	for (const candidate of candidates) {
		const at = candidate.indexOf("/l/meetup-join/");
		if (at >= 0) return new URL(candidate.slice(at), `https://${TEAMS_WORK}`);
	}
	return null;
}

function parseMeetupJoin(host: string, target: URL): ParsedMeetingLink | null {
	// Only the raw path is split: the thread id is percent-encoded and may contain '/' once decoded.
	const raw = target.pathname.split("/").filter((p) => p !== "");
	if (raw.length < 3 || raw.length > 4) return null;
	const thread = safeDecode(raw[2] ?? "");
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

export const teams: PlatformFacts = {
	id: "teams",
	name: "Microsoft Teams",
	ownsHost: (host) => host === TEAMS_PERSONAL || TEAMS_WORK_HOSTS.has(host),
	parseLink(url) {
		const s = pathSegments(url);
		if (s.length === 2 && s[0] === "meet") {
			const id = s[1] ?? "";
			if (!TEAMS_NUMERIC_ID.test(id)) return null;
			const passcode = validPasscode(url.searchParams.get("p"));
			// Keep the host the link came from: work meetings live on the work (or government) cloud.
			return {
				platform: "teams",
				native_meeting_id: id,
				...(passcode ? { passcode } : {}),
				constructed_meeting_url: teamsMeetUrl(url.hostname, id, passcode),
			};
		}
		if (!TEAMS_WORK_HOSTS.has(url.hostname)) return null;
		const meetup = meetupJoinTarget(url);
		if (meetup) return parseMeetupJoin(url.hostname, meetup);
		if (s.length === 2 && s[0] === "light-meetings" && s[1] === "launch") return parseLightMeeting(url);
		return null;
	},
	meetingUrl: (nativeId, passcode) =>
		DIGITS.test(nativeId) ? teamsMeetUrl(TEAMS_PERSONAL, nativeId, passcode) : teamsMeetupUrl(TEAMS_WORK, nativeId, "0", null),
	linkLabel: (nativeId) => `Microsoft Teams meeting ${shortened(nativeId)}`,
	// Sign-in: work accounts on login.microsoftonline.com, personal (teams.live.com) ones on login.live.com.
	browserHosts: [TEAMS_WORK, TEAMS_PERSONAL, "login.microsoftonline.com", "login.live.com"],
	// An anonymous guest presents only when the meeting's "Who can present?" includes it.
	screenShare: "host_permits",
};
