import { describe, expect, it } from "vitest";
import type { FailureStage, MeetingStatus } from "../../../src/meetings/status-machine";
import { buildEnvelope, type WebhookEnvelope, type WebhookMeeting, webhookEventId, webhookEventsFor } from "../../../src/webhooks/envelope";
// Golden envelopes (docs/webhooks.md#envelope), the wire shape existing receivers parse.
import botFailed from "../../worker/webhooks/golden/Envelope.bot-failed.json";
import meetingCompleted from "../../worker/webhooks/golden/Envelope.meeting-completed.json";

const goldens = [botFailed, meetingCompleted] as unknown as WebhookEnvelope[];

describe("buildEnvelope", () => {
	it.each(goldens.map((g) => [g.event_type, g] as const))("reproduces the %s golden byte for byte", async (_type, golden) => {
		const built = await buildEnvelope({
			event_type: golden.event_type,
			meeting: golden.data.meeting,
			status_change: golden.data.status_change,
			created_at: new Date(golden.created_at),
			event_id: golden.event_id,
		});
		expect(built).toEqual(golden);
		expect(JSON.stringify(built)).toBe(JSON.stringify(golden));
	});

	it("carries only the contract's keys at every level", async () => {
		const built = await buildEnvelope({ event_type: "meeting.completed", meeting: meetingCompleted.data.meeting as WebhookMeeting });
		expect(Object.keys(built).sort()).toEqual(["api_version", "created_at", "data", "event_id", "event_type"]);
		expect(Object.keys(built.data)).toEqual(["meeting"]);
		expect(built.api_version).toBe("2026-03-01");
		expect(built.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
	});

	it("leaves the transcript and internal fields out of the meeting", async () => {
		const record = {
			...(meetingCompleted.data.meeting as WebhookMeeting),
			segments: [{ text: "secret plans" }],
			transcript: "secret plans",
			bot_container_id: "mtg-1",
		};
		const built = await buildEnvelope({ event_type: "meeting.completed", meeting: record });
		expect(JSON.stringify(built)).not.toContain("secret plans");
		expect(built.data.meeting).not.toHaveProperty("bot_container_id");
		expect(Object.keys(built.data.meeting)).toEqual(Object.keys(meetingCompleted.data.meeting));
	});

	it("derives the same event_id for the same logical event, and a new one for the next step", async () => {
		const meeting = botFailed.data.meeting as WebhookMeeting;
		const change = botFailed.data.status_change as WebhookEnvelope["data"]["status_change"] & object;
		const first = await buildEnvelope({ event_type: "bot.failed", meeting, status_change: change, created_at: new Date(0) });
		const again = await buildEnvelope({ event_type: "bot.failed", meeting, status_change: change });
		expect(first.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
		expect(again.event_id).toBe(first.event_id);
		const sibling = await buildEnvelope({ event_type: "meeting.status_change", meeting, status_change: change });
		expect(sibling.event_id).not.toBe(first.event_id);
		const later = await buildEnvelope({
			event_type: "bot.failed",
			meeting,
			status_change: { ...change, timestamp: "2026-06-18T10:09:00.000Z" },
		});
		expect(later.event_id).not.toBe(first.event_id);
	});

	it("identifies an event without a status step by the meeting's state", async () => {
		const m = meetingCompleted.data.meeting as WebhookMeeting;
		const a = await webhookEventId("meeting.completed", m);
		expect(await webhookEventId("meeting.completed", { ...m })).toBe(a);
		expect(await webhookEventId("meeting.completed", { ...m, updated_at: "2026-06-18T11:00:00.000Z" })).not.toBe(a);
	});
});

describe("webhookEventsFor", () => {
	const CASES: [MeetingStatus, FailureStage | null, MeetingStatus, string[]][] = [
		["requested", "requested", "joining", ["meeting.status_change"]],
		["awaiting_admission", "awaiting_admission", "active", ["meeting.started", "meeting.status_change"]],
		["requested", "requested", "active", ["meeting.started", "meeting.status_change"]],
		["needs_help", "active", "active", ["meeting.status_change"]],
		["active", "active", "stopping", ["meeting.status_change"]],
		["stopping", "active", "completed", ["meeting.completed", "meeting.status_change"]],
		["awaiting_admission", "awaiting_admission", "failed", ["bot.failed", "meeting.status_change"]],
		["idle", null, "requested", ["meeting.status_change"]],
		["active", "active", "active", []],
	];
	it.each(CASES)("%s (reached %s) → %s raises %j", (status, reached_stage, after, events) => {
		expect(webhookEventsFor({ status, reached_stage }, after)).toEqual(events);
	});
});
