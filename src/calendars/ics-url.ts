/**
 * The ICS feed address: what is accepted as one, and the only form it is ever shown in.
 * The address is a credential (a Google "secret address" or an Outlook published link lets
 * anyone read the calendar), so the masked form keeps the host and four characters at most.
 */
import { invalidField } from "../errors";
import { checkOutboundUrl, type OutboundPolicy } from "../outbound/url-guard";

export const MAX_ICS_URL_LENGTH = 2048;

const GOOGLE_GUIDANCE =
	'This is a Google Calendar page (embed) address, not a calendar feed. In Google Calendar open Settings, select the calendar, and under "Integrate calendar" copy the "Secret address in iCal format" (it ends in .ics).';
const OUTLOOK_GUIDANCE =
	'This is an Outlook calendar page (HTML) address, not a calendar feed. In Outlook open Settings > Calendar > Shared calendars, publish the calendar and copy the "ICS" link (it ends in .ics).';

/** Guidance when `url` is a calendar web page of Google or Outlook rather than its ICS feed; null otherwise. */
export function calendarPageGuidance(url: URL): string | null {
	const host = url.hostname.toLowerCase();
	const path = url.pathname.toLowerCase();
	if (host === "calendar.google.com" || ((host === "www.google.com" || host === "google.com") && path.startsWith("/calendar"))) {
		// The feed lives under /calendar/ical/...; everything else there is the web app or an embed.
		return path.includes("/calendar/ical/") ? null : GOOGLE_GUIDANCE;
	}
	const outlook = ["outlook.office365.com", "outlook.office.com", "outlook.live.com"].includes(host);
	// Published Outlook calendars come as .../calendar.html (the page) and .../calendar.ics (the feed).
	if (outlook && !path.endsWith(".ics")) return OUTLOOK_GUIDANCE;
	return null;
}

/**
 * Checks an address sent in a connection request; the 422 names the field and never repeats
 * the address. Returns the normalized URL text.
 */
export function acceptIcsUrl(raw: string, policy: OutboundPolicy, loc: (string | number)[] = ["body", "ics_url"]): string {
	const text = raw.trim();
	if (text.length === 0) throw invalidField(loc, "ics_url must not be empty");
	if (text.length > MAX_ICS_URL_LENGTH) throw invalidField(loc, `ics_url must be at most ${MAX_ICS_URL_LENGTH} characters`);
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		throw invalidField(loc, "ics_url must be an http(s) URL");
	}
	if (url.protocol === "webcal:" || url.protocol === "webcals:") {
		throw invalidField(loc, "ics_url must be an http(s) URL: replace webcal:// with https://");
	}
	if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidField(loc, "ics_url must be an http(s) URL");
	const guidance = calendarPageGuidance(url);
	if (guidance) throw invalidField(loc, guidance, "calendar_page_url");
	const checked = checkOutboundUrl(url, policy);
	if (!checked.ok) throw invalidField(loc, `ics_url is not an allowed feed address: ${checked.detail}`);
	return url.toString();
}

/** Host plus a short suffix, e.g. `calendar.google.com/…c.ics`: enough to recognize, never enough to use. */
export function maskIcsUrl(clear: string): string {
	let url: URL;
	try {
		url = new URL(clear);
	} catch {
		return "…";
	}
	const rest = `${url.pathname}${url.search}`;
	// Four characters of a long path are a file extension or a fragment of a token, never all of it.
	const suffix = rest.length > 12 ? rest.slice(-4) : "";
	return `${url.host}/…${suffix}`;
}
