import { describe, expect, it } from "vitest";
import { testMeeting } from "./test-meeting";
import { buildTimeline, endingWords } from "./timeline";
import type { Meeting } from "./types";

const base: Meeting = testMeeting({
	id: 5,
	constructed_meeting_url: "https://meet.google.com/abc-defg-hij",
	bot_container_id: "bot-5",
	auto_join: true,
});

describe("status timeline", () => {
	it("a failed meeting names its stage, reason and the bot's sentence", () => {
		const failed: Meeting = {
			...base,
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "joining",
			end_time: "2026-06-18T10:00:09.000Z",
			data: { failure_detail: "meeting not found (Check your meeting code)" },
		};
		expect(endingWords(failed)).toBe("Failed while joining: the bot could not join. meeting not found (Check your meeting code)");
		const steps = buildTimeline(failed, []);
		expect(steps.map((s) => s.status)).toEqual(["created", "failed"]);
		expect(steps[1]?.detail).not.toContain("join_failure");
	});

	it("a meeting the fleet ended names the cause beside the completion reason", () => {
		const unplaced: Meeting = {
			...base,
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "requested",
			data: { failure_cause: "no_bot_capacity", failure_detail: "no bot host took the meeting within 180 s" },
		};
		expect(endingWords(unplaced)).toBe(
			"Failed before a bot host took it: the bot could not join (no bot host had room for it). no bot host took the meeting within 180 s",
		);
		const lost: Meeting = { ...base, status: "failed", failure_stage: "active", data: { failure_cause: "bot_host_lost" } };
		expect(endingWords(lost)).toBe("Failed in the call (its bot host went away).");
	});

	it("a meeting the host ended says so, though its reason is left_alone", () => {
		const ended: Meeting = { ...base, status: "completed", completion_reason: "left_alone", data: { completion_cause: "ended_by_host" } };
		expect(endingWords(ended)).toBe("Completed: the host ended the meeting.");
	});

	it("a failed join says the step it stopped at, in words", () => {
		const stuck: Meeting = {
			...base,
			status: "failed",
			completion_reason: "awaiting_admission_timeout",
			failure_stage: "awaiting_admission",
			data: { join_step: "lobby" },
		};
		expect(endingWords(stuck)).toBe("Failed in the lobby: nobody let the bot in in time. Last step: waiting in the lobby.");
	});

	it("a failure without a reason still says it failed, with the detail", () => {
		expect(endingWords({ ...base, status: "failed", data: { failure_detail: "sign_in_required: org only" } })).toBe(
			"Failed. sign_in_required: org only",
		);
	});

	it("keeps the live steps in order, drops repeats, and adds the record's start and end", () => {
		const done: Meeting = {
			...base,
			status: "completed",
			completion_reason: "stopped",
			start_time: "2026-06-18T10:00:05.000Z",
			end_time: "2026-06-18T10:10:00.000Z",
		};
		const steps = buildTimeline(done, [
			{ status: "joining", ts: "2026-06-18T10:00:01.000Z" },
			{ status: "joining", ts: "2026-06-18T10:00:02.000Z" },
			{ status: "awaiting_admission", ts: "2026-06-18T10:00:03.000Z", reason: "in the lobby" },
			{ status: "stopping", ts: "2026-06-18T10:09:55.000Z" },
		]);
		expect(steps.map((s) => `${s.status}@${s.at?.slice(14, 19)}`)).toEqual([
			"created@00:00",
			"joining@00:01",
			"awaiting_admission@00:03",
			"active@00:05",
			"stopping@09:55",
			"completed@10:00",
		]);
		expect(steps.at(-1)?.detail).toBe("Completed: you stopped the bot (or it left on request).");
	});

	it("a live meeting shows its current status even when no frame was seen", () => {
		expect(
			buildTimeline({ ...base, status: "awaiting_admission", updated_at: "2026-06-18T10:00:04.000Z" }, []).map((s) => s.status),
		).toEqual(["created", "awaiting_admission"]);
	});
});
