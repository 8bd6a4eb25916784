/**
 * The seam between a meeting's room and its MeetingStream (docs/meeting-stream.md#where-it-lives):
 * the room feeds the stream object and never waits for its copilot, so a model that stalls holds
 * up neither the bot's acks nor a status move; the stream itself still waits for the copilot's
 * final beat before its meeting-end.
 */
import { describe, expect, it } from "vitest";
import { eventually } from "../../shared/wait";
import { getMeeting, liveMeeting } from "../meetings/helpers";
import { copilotOwner, ofType, said, startCopilot, streamEvents } from "./copilot-helpers";
import { script, sent } from "./helpers";

/** How long the model server waits before each beat's text, and again before the beat's end. */
const STALL_MS = 3000;

describe("a copilot whose model stalls", () => {
	it("delays neither the bot's ack nor the move to completed; its stream ends after the final beat", async () => {
		const m = `stall-${crypto.randomUUID().slice(0, 8)}`;
		// The live beat, then the final beat: each answers only after STALL_MS, and ends STALL_MS later.
		await script(m, [
			{ text: ["Alice introduced herself."], delay_ms: STALL_MS },
			{ text: ["## Summary\nAlice spoke."], delay_ms: STALL_MS },
		]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", `I am Alice ${m}`));
		// A new speaker: a beat is due, and its model call stalls.
		await live.bot.send(said("s-2", "Bob", "Welcome", 2));
		await eventually("the stalled beat's model call", async () => ((await sent(m)).length >= 1 ? true : undefined));

		const asked = Date.now();
		await live.bot.status("completed", { completion_reason: "left_alone" });
		expect((await getMeeting(owner.headers, live.meeting.id)).status).toBe("completed");
		expect(Date.now() - asked).toBeLessThan(STALL_MS);
		// The move did not wait for the copilot: neither beat has said anything yet, and the stream has not ended.
		const atTheMove = await streamEvents(live.meeting.id);
		expect(ofType(atTheMove, "message-delta")).toEqual([]);
		expect(ofType(atTheMove, "meeting-end")).toEqual([]);

		// The stream waits for the copilot instead: both beats' words, then meeting-end, last.
		const events = await eventually(
			"the meeting-end after the final beat",
			async () => {
				const all = await streamEvents(live.meeting.id);
				return all.at(-1)?.event.type === "meeting-end" ? all : undefined;
			},
			6 * STALL_MS,
		);
		expect(ofType(events, "message-delta").map((delta) => delta.text)).toEqual(["Alice introduced herself.", "## Summary\nAlice spoke."]);
		expect(ofType(events, "meeting-end")).toEqual([{ type: "meeting-end", status: "completed", completion_reason: "left_alone" }]);
		expect(ofType(events, "transcript").map((line) => line.id)).toEqual(["s-1", "s-2"]);
		expect(await sent(m)).toHaveLength(2);
	});
});
