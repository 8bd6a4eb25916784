/** Google Meet: links `https://meet.google.com/<abc-defg-hij>`; Meet has no passcode. */
import { bounded, pathSegments } from "../link-parts.ts";
import type { PlatformFacts } from "../platform-facts.ts";

const MEET_HOST = "meet.google.com";
const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/;

export const googleMeet: PlatformFacts = {
	id: "google_meet",
	name: "Google Meet",
	ownsHost: (host) => host === MEET_HOST,
	parseLink(url) {
		const segments = pathSegments(url);
		if (segments.length !== 1) return null; // /lookup/<name>, /landing/..., the home page
		const code = segments[0]?.toLowerCase() ?? "";
		if (!MEET_CODE.test(code)) return null;
		return { platform: "google_meet", native_meeting_id: code, constructed_meeting_url: `https://${MEET_HOST}/${code}` };
	},
	meetingUrl: (nativeId) => `https://${MEET_HOST}/${encodeURIComponent(nativeId)}`,
	linkLabel: (nativeId) => `Google Meet ${bounded(nativeId, 40)}`,
	browserHosts: [MEET_HOST, "accounts.google.com"],
	// Meet's host controls let everyone share their screen unless the host turns it off.
	screenShare: "guest_can_share",
};
