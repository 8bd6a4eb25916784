import { describe, expect, it } from "vitest";
import type { FeedFrame } from "./live";
import { placementOf, waitedWords, withPlacementFrame } from "./placement-words";
import { testMeeting } from "./test-meeting";
import type { Meeting } from "./types";

const placement = {
	since: "2026-06-18T10:00:00.000Z",
	deadline: "2026-06-18T10:03:00.000Z",
	attempt: 1,
	reason: "all_hosts_busy" as const,
	detail: "all bot hosts are busy",
	hosts_reporting: 2,
};

const meeting = (status: string, data: Meeting["data"] = {}): Meeting => testMeeting({ status, data });

const frame = (status: string, data: Record<string, unknown> | null, id = 7): FeedFrame =>
	({
		type: "meeting.status",
		meeting: { id, platform: "google_meet", native_id: "abc-defg-hij" },
		payload: { status, data },
		user_id: 1,
		ts: "2026-06-18T10:00:10.000Z",
	}) as FeedFrame;

describe("waitedWords", () => {
	const since = "2026-06-18T10:00:00.000Z";
	const at = (s: number) => Date.parse(since) + s * 1000;
	it("counts seconds, then minutes and seconds, then hours and minutes", () => {
		expect(waitedWords(since, at(8))).toBe("8 s");
		expect(waitedWords(since, at(125))).toBe("2 min 05 s");
		expect(waitedWords(since, at(3780))).toBe("1 h 03 min");
	});
	it("never counts below zero (a clock behind the server's) nor from an unreadable time", () => {
		expect(waitedWords(since, at(-30))).toBe("0 s");
		expect(waitedWords("not a time", at(30))).toBe("0 s");
	});
});

describe("withPlacementFrame", () => {
	it("takes the placement a note carries", () => {
		const next = withPlacementFrame(meeting("requested", { title: "T" }), frame("requested", { reason: placement.detail, placement }));
		expect(placementOf(next)).toEqual(placement);
		expect(next.data.title).toBe("T");
	});
	it("drops it when the meeting moves on to another status, and keeps it on a step that says nothing of it", () => {
		const waiting = meeting("requested", { placement });
		expect(placementOf(withPlacementFrame(waiting, frame("joining", null)))).toBeNull();
		expect(placementOf(withPlacementFrame(waiting, frame("requested", null)))).toEqual(placement);
		expect(withPlacementFrame(waiting, frame("joining", null, 8))).toBe(waiting);
	});
});
