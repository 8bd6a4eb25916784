/**
 * Which source a segment came from (docs/api.md#transcription-engines): the bot says `source` on
 * each segment, and every projection carries it: the room's store, `/ws` frames and REST; a
 * segment sent without one (a bot host of an earlier release) reads `null` in REST and leaves the
 * key out on `/ws`, as other keys the bot did not send.
 */
import { describe, expect, it } from "vitest";
import type { LiveSegment, TranscriptFrame } from "../../../src/live/frames";
import { eventually } from "../../shared/wait";
import { call, json, userWithKey } from "../support";
import { openSocket } from "./bot-sim";
import { liveMeeting, segment } from "./helpers";

describe("a segment's source", () => {
	it("travels from the bot to the store, /ws and REST, and reads null where an older bot sent none", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		const heard = { ...segment({ segment_id: "s-deepgram", text: "From Deepgram." }), source: "deepgram" };
		const older = segment({ segment_id: "s-older", text: "From an older bot.", start: 3, end: 4 });
		await bot.send({ type: "segment", segment: heard });
		await bot.send({ type: "segment", segment: older });
		const live = await eventually("both confirmations on /ws", () => {
			const confirmed = (socket.messages.filter((m) => m.type === "transcript") as unknown as TranscriptFrame[]).flatMap(
				(b) => b.confirmed,
			);
			const a = confirmed.find((s) => s.segment_id === heard.segment_id);
			const b = confirmed.find((s) => s.segment_id === older.segment_id);
			return a && b ? [a, b] : undefined;
		});
		expect(live[0]?.source).toBe("deepgram");
		expect(live[1]).not.toHaveProperty("source");
		const stored = await json<{ segments: Pick<LiveSegment, "segment_id" | "source">[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(stored.segments.find((s) => s.segment_id === heard.segment_id)?.source).toBe("deepgram");
		expect(stored.segments.find((s) => s.segment_id === older.segment_id)?.source).toBeNull();
		socket.close();
	});
});
