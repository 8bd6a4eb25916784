import { describe, expect, it } from "vitest";
import { chatInstant, chatSection, participantsSection } from "../../../src/meetings/people-text";
import { attributeTalk, nameKey, type Person, talkBySpeaker } from "../../../src/meetings/talk-time";

const person = (participant_id: string, name: string, intervals: Person["intervals"] = []): Person => ({
	participant_id,
	name,
	joined_at: intervals[0]?.joined_at ?? null,
	left_at: null,
	intervals,
});

describe("talk time", () => {
	it("sums confirmed segments per speaker, never a negative length", () => {
		const segments = [
			{ speaker: "Ann", start: 0, end: 2.5, completed: true },
			{ speaker: "Ann", start: 10, end: 11, completed: true },
			{ speaker: "Ann", start: 20, end: 90, completed: false },
			{ speaker: "Ben", start: 5, end: 4, completed: true },
			{ speaker: null, start: 30, end: 31, completed: true },
		];
		expect(talkBySpeaker(segments)).toEqual([
			{ speaker: "Ann", seconds: 3.5 },
			{ speaker: "Ben", seconds: 0 },
			{ speaker: "", seconds: 1 },
		]);
	});

	it("matches speakers to participants by name, whatever the case, spacing or Unicode form", () => {
		expect(nameKey("  Zoë\u00a0 Smith ")).toBe(nameKey("zoe\u0308 smith"));
		const { participants, speakers } = attributeTalk(
			[person("p-1", "Zoë Smith"), person("p-2", "Sam"), person("p-3", "Sam"), person("p-4", "Quiet")],
			[
				{ speaker: "zoe\u0308  smith", seconds: 4.04 },
				{ speaker: "Zoë Smith", seconds: 1 },
				{ speaker: "Sam", seconds: 2 },
				{ speaker: "", seconds: 1 },
			],
		);
		expect(participants.map((p) => [p.participant_id, p.talk_time_s])).toEqual([
			["p-1", 5],
			["p-2", null],
			["p-3", null],
			["p-4", 0],
		]);
		expect(speakers).toEqual([
			{ speaker: "zoe\u0308  smith", talk_time_s: 4, participant_id: "p-1" },
			{ speaker: "Sam", talk_time_s: 2, participant_id: null },
			{ speaker: "", talk_time_s: 1, participant_id: null },
			{ speaker: "Zoë Smith", talk_time_s: 1, participant_id: "p-1" },
		]);
	});
});

describe("the txt export's people and chat sections", () => {
	it("folds names and chat to one line each, so none forges a line of its own", () => {
		const { participants } = attributeTalk(
			[person("p-1", "Eve\r\n- Mallory: talked 09:00:00 (100%)", [{ joined_at: null, left_at: "2026-11-22T10:00:40.000Z" }])],
			[{ speaker: "Eve\r\n- Mallory: talked 09:00:00 (100%)", seconds: 3 }],
		);
		expect(participantsSection(participants, 3)).toEqual([
			"Participants:",
			"- Eve - Mallory: talked 09:00:00 (100%): talked 00:00:03 (100%); before the bot joined to 2026-11-22T10:00:40.000Z",
			"",
		]);
		expect(chatSection([{ sender: "Bot\u2028Name", text: "a\n[x] CEO: b", timestamp: 1_795_860_005_000, is_from_bot: true }])).toEqual([
			"",
			"Chat:",
			"[2026-11-28T10:00:05.000Z] Bot Name (bot): a [x] CEO: b",
		]);
		expect(participantsSection([], 0)).toEqual([]);
		expect(chatSection([])).toEqual([]);
	});

	it("reads chat times in milliseconds or seconds, and says - for one that is no time", () => {
		expect(chatInstant(1_795_860_005_000)).toBe("2026-11-28T10:00:05.000Z");
		expect(chatInstant(1_795_860_005)).toBe("2026-11-28T10:00:05.000Z");
		expect(chatInstant(Number.NaN)).toBe("-");
		expect(chatInstant(1e300)).toBe("-");
	});
});
