/**
 * Meeting links of the three platforms: parse a pasted link into platform, native id and
 * passcode, rebuild a joinable URL from them, and judge a native id sent on its own
 * (POST /bots takes `platform` + `native_meeting_id`, not a link). Each platform's own link
 * shapes live in its folder under src/platforms; this is the one door to them.
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
import { type ParsedMeetingLink, PLATFORM_FACTS, type Platform, platformOfHost } from "../platforms/index.ts";
import { validPasscode } from "../platforms/link-parts.ts";

export type { ParsedMeetingLink } from "../platforms/index.ts";

/** The longest native id accepted (the reference's column width). */
export const NATIVE_MEETING_ID_MAX_LENGTH = 255;

// The id becomes a URL path segment and the key of /bots/{platform}/{id}: these would cut it.
const URL_STRUCTURAL = /[?&=/#\s]/;
/** C0 controls, DEL and the C1 range (Unicode's Cc): never part of an id, and they break logs and lookups. */
const CONTROL_CHARACTER = /\p{Cc}/u;

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

/** A joinable URL from platform, native id and passcode; null when the id cannot be used. */
export function constructMeetingUrl(platform: Platform, nativeId: string, passcode?: string | null): string | null {
	if (nativeMeetingIdProblem(nativeId) !== null) return null;
	return PLATFORM_FACTS[platform].meetingUrl(nativeId, validPasscode(passcode));
}

/** Parses a pasted meeting link; null for anything that is not a joinable meeting link. */
export function parseMeetingLink(link: string): ParsedMeetingLink | null {
	const url = toUrl(link);
	const platform = url ? platformOfHost(url.hostname) : null;
	return url && platform ? PLATFORM_FACTS[platform].parseLink(url) : null;
}

/** The platform a pasted link's host belongs to, before its path is read (the dashboard's form); null for no link or another host. */
export function platformOfLink(link: string): Platform | null {
	const url = toUrl(link);
	return url ? platformOfHost(url.hostname) : null;
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
