/**
 * A streaming provider as a bot's engine, end to end: real Chromium in a sandbox meeting with its
 * captions on, the meeting's audio streamed through a relay (standing in for the Worker's) to the
 * local Deepgram server (test/receiver/deepgram-server.ts), and the segments the room receives:
 * drafts then the confirmation, from `deepgram`, attributed to who was speaking, and none from the
 * captions the bot no longer reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDeepgramServer } from "../../test/receiver/deepgram-server.ts";
import type { StreamingSttServer } from "../../test/receiver/streaming-stt.ts";
import { CHANNEL_TOKEN, spawnBot, useWorld } from "./harness.ts";
import { finalStatus, segmentsOf } from "./room.ts";
import { relayTo } from "./stream-relay.ts";

describe("a streaming engine in a meeting", () => {
	const world = useWorld();
	const closers: (() => Promise<void>)[] = [];
	let deepgram: StreamingSttServer;
	let relayUrl: string;
	beforeAll(async () => {
		deepgram = await startDeepgramServer({ keys: ["dg-key"] });
		closers.push(() => deepgram.close());
		relayUrl = (await relayTo(deepgram, "/v1/listen", "Token dg-key", CHANNEL_TOKEN, closers)).url;
	});
	afterAll(async () => {
		while (closers.length) await closers.pop()?.();
	});

	it("transcribes the meeting's audio through Deepgram: drafts, then the confirmation, attributed to the speaker", async () => {
		deepgram.script("dg-key", ["the engine weaves algebraic patterns"]);
		const bot = await spawnBot(
			world,
			"google_meet",
			{ direct_join: true, participants: [{ name: "Ada Lovelace", lines: ["The engine can weave algebraic patterns."] }] },
			{
				engine: "deepgram",
				transcription_stream: { url: relayUrl, token: CHANNEL_TOKEN },
				vocabulary: ["Lovelace"],
				language: "en",
			},
		);
		const confirmed = await world.room.until(bot.meetingId, (r) => segmentsOf(r).find((s) => s.completed && s.source === "deepgram"));
		world.room.command(bot.meetingId, { action: "leave" });
		await world.room.until(bot.meetingId, finalStatus);

		expect(confirmed).toMatchObject({ text: "the engine weaves algebraic patterns", speaker: "Ada Lovelace", language: "en" });
		const received = segmentsOf(world.room.received(bot.meetingId));
		const drafts = received.filter((s) => s.segment_id === confirmed.segment_id && !s.completed);
		expect(drafts.length).toBeGreaterThan(0);
		// The captions are on in the meeting: they come first as drafts of the same stretch, but the
		// engine's text is what is confirmed (docs/bot-channel.md#captions-and-an-engine-together).
		expect(received.filter((s) => s.completed && s.source !== "deepgram")).toEqual([]);
		expect(received.filter((s) => s.source === "captions").every((s) => !s.completed && s.segment_id === confirmed.segment_id)).toBe(true);
		const words = confirmed.words ?? [];
		expect(words.map((w) => w.word)).toEqual(confirmed.text.split(" "));
		for (const w of words) {
			expect(w.start).toBeGreaterThanOrEqual(confirmed.start);
			expect(w.end).toBeLessThanOrEqual(confirmed.end + 0.001);
		}
		const [session] = deepgram.sessions;
		expect(session?.authorization).toBe("Token dg-key");
		expect(session?.query).toMatchObject({ keyterm: ["Lovelace"], language: ["en"], encoding: ["linear16"], sample_rate: ["16000"] });
		// Leaving flushed the stream Deepgram's way.
		expect(session?.messages.at(-1)).toEqual({ type: "CloseStream" });
	});
});
