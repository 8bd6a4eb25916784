/**
 * How a meeting's stream ends when the meeting has a copilot (docs/meeting-stream.md#events-and-resume):
 * the copilot's final beat first, then `meeting-end` as the last event, then the stream closes,
 * for a client that was reading and for one that comes after.
 */
import { describe, expect, it } from "vitest";
import type { MeetingStreamEvent as Frame } from "../../../src/agent/meeting-stream-events";
import { liveMeeting } from "../meetings/helpers";
import { call } from "../support";
import { copilotOwner, said, startCopilot } from "./copilot-helpers";
import { script, sent } from "./helpers";
import { readToTheEnd, type SseEvent } from "./sse";

const acmeCard = { name: "add_card", arguments: { kind: "company", title: "Acme", body: "Alice works there", actionable: false } };

function openStream(headers: Record<string, string>, code: string, lastEventId?: number) {
	return call("GET", `/agent/meeting/stream?meeting_id=${code}&session_uid=${code}`, {
		headers: lastEventId === undefined ? headers : { ...headers, "Last-Event-ID": String(lastEventId) },
	});
}

const toTheEnd = (response: Response) => readToTheEnd<Frame>(response);

const types = (events: SseEvent<Frame>[]) => events.map((e) => e.frame.type);

describe("the end of a copilot's meeting on its stream", () => {
	it("sends the final beat, then meeting-end as the last event, then closes, also to a client that comes during or after", async () => {
		const m = `final-order-${crypto.randomUUID().slice(0, 8)}`;
		// A slow final beat: without waiting for it, the end would go out before its events.
		await script(m, [{ text: ["## Summary\n", "Alice ", "spoke."], tool_calls: [acmeCard], delay_ms: 150 }]);
		const owner = await copilotOwner();
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", `I am Alice from Acme ${m}`));

		const reading = toTheEnd(await openStream(owner.headers, live.code));
		await live.bot.status("completed", { completion_reason: "left_alone" });
		const during = toTheEnd(await openStream(owner.headers, live.code));
		const events = await reading;

		expect(types(events).at(-1)).toBe("meeting-end");
		expect(types(events).filter((t) => t === "meeting-end")).toHaveLength(1);
		expect(events.at(-1)?.frame).toEqual({ type: "meeting-end", status: "completed", completion_reason: "left_alone" });
		// The final beat (one turn: its text, its tool call, its card) is all before the end.
		const final = events.filter((e) => e.frame.type === "card");
		expect(final.map((e) => e.frame)).toEqual([
			expect.objectContaining({ card: { id: "card-1", kind: "company", title: "Acme", body: "Alice works there", actionable: false } }),
		]);
		const card = final[0]?.frame;
		const turn = card?.type === "card" ? card.turn_id : undefined;
		const deltas = events.filter((e) => e.frame.type === "message-delta" && e.frame.turn_id === turn);
		expect(deltas.map((e) => (e.frame as { text: string }).text).join("")).toBe("## Summary\nAlice spoke.");
		expect(types(events)).toEqual(expect.arrayContaining(["transcript", "note", "tool-call"]));
		expect((await sent(m)).length).toBe(1);

		// A client that connected after the status turned terminal sees the same ending.
		const second = await during;
		expect(types(second).at(-1)).toBe("meeting-end");
		expect(second.at(-1)?.id).toBe(events.at(-1)?.id);
		expect(types(second)).toContain("card");

		// One that comes after the end gets the backlog, the end last, and the close; one resuming after the end gets only the close.
		const late = await toTheEnd(await openStream(owner.headers, live.code));
		expect(late.map((e) => e.id)).toEqual(events.map((e) => e.id));
		expect(await toTheEnd(await openStream(owner.headers, live.code, events.at(-1)?.id))).toEqual([]);
		const resumed = await toTheEnd(await openStream(owner.headers, live.code, deltas[0]?.id));
		expect(resumed.map((e) => e.id)).toEqual(events.filter((e) => e.id > (deltas[0]?.id ?? 0)).map((e) => e.id));
	});

	it("without a model the copilot's end is its excerpt: meeting-end goes out at once and the stream closes", async () => {
		const owner = await copilotOwner(false);
		const live = await liveMeeting(owner.headers);
		await startCopilot(owner.headers, live.code);
		await live.bot.send(said("s-1", "Alice", "We ship on Monday"));
		const reading = toTheEnd(await openStream(owner.headers, live.code));
		await live.bot.status("failed", { completion_reason: "evicted", reason: "removed" });
		const events = await reading;
		expect(types(events)).toEqual(["transcript", "note", "meeting-end"]);
		expect(events.at(-1)?.frame).toEqual({ type: "meeting-end", status: "failed", completion_reason: "evicted" });
	});
});
