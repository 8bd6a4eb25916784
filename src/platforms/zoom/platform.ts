/**
 * Zoom: `https://<sub>.zoom.us/j/<digits>?pwd=<passcode>` and its variants (host start, webinar,
 * the web client's paths, a Personal Link under /my/), on zoom.us or the government cloud
 * zoomgov.com. zoom.us redirects to the account's own subdomain, so a subdomain need not be kept;
 * the cloud must.
 */
import { bounded, pathSegments, validPasscode, withQuery } from "../link-parts.ts";
import type { PlatformFacts } from "../platform-facts.ts";

const ZOOM_HOME = "zoom.us";
const ZOOM_GOV = "zoomgov.com";
/** Attendee (meeting_url_utils.py): zoom.com links are zoom.us links. */
const ZOOM_COM = "zoom.com";
/** A registrant token (`tk`) of a meeting or webinar that needs registration: printable, no spaces. */
const ZOOM_REGISTRANT_TOKEN = /^[\x21-\x7e]{1,512}$/;
const DIGITS = /^\d+$/;
const ZOOM_NUMERIC_ID = /^\d{9,11}$/;
// Zoom's rule for a Personal Link name: 5 to 40 characters, starts with a letter, then letters, digits and dots.
const ZOOM_VANITY = /^[a-z][a-z0-9.]{4,39}$/i;

const onHome = (host: string, home: string) => host === home || host.endsWith(`.${home}`);

/** The meeting id in a Zoom link's path: a meeting number, or a Personal Link name under /my/. */
function zoomLinkId(s: string[]): string | null {
	if (s.length === 2 && s[0] === "my") {
		const vanity = s[1]?.toLowerCase() ?? "";
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

function zoomUrl(home: string, id: string, passcode: string | undefined): string {
	const path = DIGITS.test(id) ? `j/${id}` : `my/${encodeURIComponent(id)}`;
	return withQuery(`https://${home}/${path}`, "pwd", passcode);
}

/** Zoom's own grouping of a numeric meeting id: 3-3-3, 3-3-4 or 3-4-4 digits. */
function zoomGroups(id: string): string {
	if (!ZOOM_NUMERIC_ID.test(id)) return id;
	const tail = id.length >= 10 ? 4 : 3;
	const middle = id.length - 3 - tail;
	return `${id.slice(0, 3)} ${id.slice(3, 3 + middle)} ${id.slice(3 + middle)}`;
}

export const zoom: PlatformFacts = {
	id: "zoom",
	name: "Zoom",
	ownsHost: (host) => onHome(host, ZOOM_HOME) || onHome(host, ZOOM_COM) || onHome(host, ZOOM_GOV),
	parseLink(url) {
		const id = zoomLinkId(pathSegments(url));
		if (id === null) return null;
		const home = onHome(url.hostname, ZOOM_GOV) ? ZOOM_GOV : ZOOM_HOME;
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
	},
	meetingUrl: (nativeId, passcode) => zoomUrl(ZOOM_HOME, nativeId, passcode),
	linkLabel: (nativeId) => `Zoom ${bounded(zoomGroups(nativeId), 40)}`,
	browserHosts: [ZOOM_HOME, `*.${ZOOM_HOME}`],
	// Zoom's "Who can share?" setting decides; many accounts leave it to the host only.
	screenShare: "host_permits",
};
