/**
 * Applying `/ws` frames to what the meeting pages hold (docs/live-feed.md). Pure
 * (meeting-feed.test.ts).
 */
import { isPlatform } from "../../src/platforms/index.ts";
import type { FeedFrame, MeetingRef } from "./live";
import { withPlacementFrame } from "./placement-words";
import type { Meeting } from "./types";

/** The refs `/ws` can watch: meetings with a link. */
export function feedRefs(meetings: Meeting[]): MeetingRef[] {
	return meetings
		.filter((m) => m.native_meeting_id && isPlatform(m.platform))
		.map((m) => ({ platform: m.platform, native_id: m.native_meeting_id as string }));
}

/** Applies a `meeting.status` frame to a list: the new status and reason (and what a waiting meeting waits on), or the plan removed. */
export function withStatusFrame(meetings: Meeting[], frame: FeedFrame): Meeting[] | null {
	if (frame.type !== "meeting.status") return null;
	const id = frame.meeting.id;
	const index = meetings.findIndex((m) => m.id === id);
	if (index < 0) return null;
	const { status, data } = frame.payload;
	if (!status) return null;
	if (status === "deleted") return meetings.filter((m) => m.id !== id);
	const current = withPlacementFrame(meetings[index] as Meeting, frame);
	const next = [...meetings];
	const cause = data?.completion_cause;
	next[index] = {
		...current,
		status,
		completion_reason: data?.completion_reason ?? current.completion_reason,
		...(cause ? { data: { ...current.data, completion_cause: cause } } : {}),
	};
	return next;
}
