/**
 * A meeting as a person names it (GET /agent/meeting/resolve, the copilot page's "Meeting" box):
 * our meeting number, a pasted Google Meet, Zoom or Teams link (parsed as POST /bots parses it),
 * or a meeting's own code (`abc-defg-hij`, a Zoom or Teams number). It resolves to a meeting
 * the caller may read, their own first and the newest; anything else is a 404 or a 422 in words
 * that say what to type instead, and whether someone else's meeting exists is never told.
 */
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { invalidField, notFound } from "../errors";
import { nativeMeetingIdProblem, parseMeetingLink } from "../meetings/meeting-link";
import { findMeetingOnLink, findReadableMeeting } from "../meetings/meeting-store";

/** The longest reference read: a Teams meetup-join link with its context is long, but not this long. */
export const MEETING_REF_MAX = 2000;

const LOC = ["query", "meeting"];
const MEETING_NUMBER = /^[0-9]{1,15}$/;
const MEET_CODE = /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/i;
/** Text that was meant as a link: a scheme, or a host with a path. */
const LINK_LIKE = /^[a-z][a-z0-9+.-]*:\/\/|^[^/\s]+\.[a-z]{2,}\//i;

const notOnRecord = (what: string) =>
	notFound(`No meeting of yours matches ${what}: send a bot to it first, or pick one of your meetings from the list`);

/** The caller's meeting that `ref` names; throws 404 (none readable) or 422 (not a meeting reference). */
export async function meetingOfRef(env: Env, userId: number, ref: string): Promise<MeetingRow> {
	const text = ref.trim();
	if (MEETING_NUMBER.test(text)) {
		const byNumber = await findReadableMeeting(env, userId, Number(text));
		if (byNumber) return byNumber;
		// A Zoom or Teams meeting's own number looks like ours.
		const byCode = await findMeetingOnLink(env, userId, null, text);
		if (byCode) return byCode;
		throw notOnRecord(`the number ${text}`);
	}
	const link = parseMeetingLink(text);
	if (link) {
		const onLink = await findMeetingOnLink(env, userId, link.platform, link.native_meeting_id);
		if (onLink) return onLink;
		throw notOnRecord(`that link (${link.platform} ${link.native_meeting_id})`);
	}
	if (LINK_LIKE.test(text))
		throw invalidField(
			LOC,
			"That is not a Google Meet, Zoom or Teams meeting link: paste the meeting's whole link, its code or its number",
		);
	const problem = nativeMeetingIdProblem(text);
	if (problem !== null)
		throw invalidField(LOC, "Type a meeting's number, its link (Google Meet, Zoom or Teams) or its code, such as abc-defg-hij");
	// Meet codes are lower case; one typed in capitals is the same meeting.
	const code = MEET_CODE.test(text) ? text.toLowerCase() : text;
	const byCode = await findMeetingOnLink(env, userId, null, code);
	if (byCode) return byCode;
	throw notOnRecord(`the code ${code}`);
}
