import { describe, expect, it } from "vitest";
import { feedRefs, withStatusFrame } from "./meeting-feed";
import { testMeeting } from "./test-meeting";
import type { Meeting } from "./types";

const at = { user_id: 1, ts: "2026-06-18T10:05:00.000Z" };

const meeting = (id: number, status: string, native: string | null, platform: Meeting["platform"] = "google_meet"): Meeting =>
	testMeeting({ id, status, platform, native_meeting_id: native, session_uid: native, auto_join: true });

const list = [meeting(1, "active", "abc-defg-hij"), meeting(2, "idle", null, "unknown"), meeting(3, "scheduled", "123", "zoom")];

describe("meetings list and /ws status frames", () => {
	it("watches only meetings with a link", () => {
		expect(feedRefs(list)).toEqual([
			{ platform: "google_meet", native_id: "abc-defg-hij" },
			{ platform: "zoom", native_id: "123" },
		]);
	});

	it("a meeting.status frame sets the listed meeting's status and reason", () => {
		const next = withStatusFrame(list, {
			type: "meeting.status",
			meeting: { id: 1, platform: "google_meet", native_id: "abc-defg-hij" },
			payload: { status: "completed", data: { completion_reason: "stopped" } },
			...at,
		});
		expect(next?.[0]).toMatchObject({ id: 1, status: "completed", completion_reason: "stopped" });
		expect(list[0]?.status).toBe("active");
	});

	it("a waiting meeting's note brings what it waits on, and its next status step ends it", () => {
		const placement = {
			since: "2026-06-18T10:00:00.000Z",
			deadline: "2026-06-18T10:03:00.000Z",
			attempt: 1,
			reason: "no_host_reported" as const,
			detail: "no bot host has reported in the last 60 s",
			hosts_reporting: 0,
		};
		const waiting = [meeting(4, "requested", "kkk-llll-mmm")];
		const ref = { id: 4, platform: "google_meet", native_id: "kkk-llll-mmm" };
		const noted = withStatusFrame(waiting, {
			type: "meeting.status",
			meeting: ref,
			payload: { status: "requested", data: { reason: placement.detail, placement } },
			...at,
		});
		expect(noted?.[0]?.data.placement).toEqual(placement);
		const joining = withStatusFrame(noted ?? [], {
			type: "meeting.status",
			meeting: ref,
			payload: { status: "joining", data: null },
			...at,
		});
		expect(joining?.[0]).toMatchObject({ status: "joining", data: {} });
		expect(joining?.[0]?.data.placement).toBeUndefined();
	});

	it("a deleted plan leaves the list", () => {
		const next = withStatusFrame(list, {
			type: "meeting.status",
			meeting: { id: 3, platform: "zoom", native_id: "123" },
			payload: { status: "deleted", data: null },
			...at,
		});
		expect(next?.map((m) => m.id)).toEqual([1, 2]);
	});

	it("a frame about a meeting not listed, or not a status frame, asks for a reload (null)", () => {
		expect(
			withStatusFrame(list, {
				type: "meeting.status",
				meeting: { id: 9, platform: "zoom", native_id: "9" },
				payload: { status: "requested", data: null },
				...at,
			}),
		).toBeNull();
		expect(
			withStatusFrame(list, {
				type: "transcript",
				meeting: { id: 1, platform: "google_meet", native_id: "abc-defg-hij" },
				speaker: "Alice",
				confirmed: [],
				pending: [],
				ts: at.ts,
			}),
		).toBeNull();
	});
});
