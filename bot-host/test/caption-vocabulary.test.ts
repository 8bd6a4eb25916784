/**
 * Custom vocabulary on captions, end to end: real Chromium in a sandbox Meet meeting whose live
 * captions misspell the names said (as a caption recognizer does with names it does not know),
 * and the segments the room receives from a bot that was given those names.
 */
import { describe, expect, it } from "vitest";
import { spawnBot, useWorld } from "./harness.ts";
import { finalStatus, type Segment, segmentsOf } from "./room.ts";

const LINE = "Siobhán O'Neill will ship the Kubernetes operator today.";
const MEETING = {
	direct_join: true,
	participants: [{ name: "Ada Lovelace", lines: [LINE] }],
	caption_heard_as: { "Siobhán O'Neill": "Shioban O'Neil", Kubernetes: "Kubernetis" },
};

describe("caption spelling from the vocabulary", () => {
	const world = useWorld();

	const confirmedLine = async (vocabulary: string[]): Promise<{ confirmed: Segment; drafts: Segment[] }> => {
		const bot = await spawnBot(world, "google_meet", MEETING, { vocabulary });
		const confirmed = await world.room.until(bot.meetingId, (r) =>
			segmentsOf(r).find((s) => s.completed && s.speaker === "Ada Lovelace" && s.text.endsWith("today.")),
		);
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);
		const drafts = segmentsOf(world.room.received(bot.meetingId)).filter((s) => !s.completed);
		return { confirmed, drafts };
	};

	it("gives the transcript the listed spellings where the captions misspell them", async () => {
		// The meeting's captions as they come: the names misspelled.
		const plain = await confirmedLine([]);
		expect(plain.confirmed.text).toBe("Shioban O'Neil will ship the Kubernetis operator today.");

		const { confirmed, drafts } = await confirmedLine(["Siobhán O'Neill", "Kubernetes operator"]);
		expect(confirmed.text).toBe(LINE);
		expect(confirmed.speaker_source).toBe("caption");
		// The drafts are spelled as listed too, as soon as a name is on screen.
		expect(drafts.length).toBeGreaterThan(0);
		for (const draft of drafts) {
			expect(draft.text).not.toMatch(/Kubernetis|O'Neil\b/);
		}
	});
});
