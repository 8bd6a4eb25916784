/**
 * Segments whose speaker is known only later: a provisional label ("Unknown speaker",
 * speaker_source "none") is rebound under the same segment_id, and both the stored transcript
 * and the /ws subscribers end up with the name, with no stale draft left under the label.
 */
import { describe, expect, it } from "vitest";
import type { BotSegment } from "../../../src/bot-channel/protocol";
import { eventually } from "../../shared/wait";
import { call, json, userWithKey } from "../support";
import { openSocket, type SocketClient } from "./bot-sim";
import { liveMeeting } from "./helpers";

const PROVISIONAL = "Unknown speaker";

const unattributed = (over: Partial<BotSegment>): BotSegment => ({
	segment_id: "a-1",
	speaker: PROVISIONAL,
	speaker_source: "none",
	text: "We ship",
	start: 3,
	end: 3.8,
	language: "en",
	completed: false,
	...over,
});

interface Bundle {
	speaker: string;
	confirmed: BotSegment[];
	pending: BotSegment[];
}

const bundlesAfter = (socket: SocketClient, from: number, count: number) =>
	eventually(`${count} bundles`, () => {
		const b = socket.messages.slice(from).filter((m) => m.type === "transcript") as unknown as Bundle[];
		return b.length >= count ? b : undefined;
	});

async function subscribedTo(key: string, code: string): Promise<SocketClient> {
	const socket = await openSocket("/ws", { "X-API-Key": key });
	socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await socket.waitFor("subscribed", (m) => m.type === "subscribed");
	return socket;
}

describe("rebinding a provisional speaker", () => {
	it("moves an open draft from the provisional label to the name, live and in the stored transcript", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const socket = await subscribedTo(key, code);

		await bot.send({ type: "segment", segment: unattributed({}) });
		const [first] = await bundlesAfter(socket, 0, 1);
		expect(first).toMatchObject({ speaker: PROVISIONAL, pending: [{ segment_id: "a-1", speaker: PROVISIONAL, speaker_source: "none" }] });

		// The platform shows who spoke: the same draft, now under a name.
		let from = socket.messages.length;
		await bot.send({ type: "segment", segment: unattributed({ speaker: "Cleo", speaker_source: "active_speaker" }) });
		const rebound = await bundlesAfter(socket, from, 2);
		expect(rebound).toEqual([
			expect.objectContaining({ speaker: PROVISIONAL, confirmed: [], pending: [] }),
			expect.objectContaining({
				speaker: "Cleo",
				confirmed: [],
				pending: [expect.objectContaining({ segment_id: "a-1", speaker: "Cleo", speaker_source: "active_speaker" })],
			}),
		]);

		from = socket.messages.length;
		await bot.send({
			type: "segment",
			segment: unattributed({ speaker: "Cleo", speaker_source: "active_speaker", text: "We ship on Friday.", completed: true }),
		});
		// The next unattributed draft shows only itself as pending: nothing stale under the label.
		await bot.send({ type: "segment", segment: unattributed({ segment_id: "a-2", text: "Who", start: 5, end: 5.4 }) });
		const after = await bundlesAfter(socket, from, 2);
		expect(after[0]).toMatchObject({ speaker: "Cleo", confirmed: [{ segment_id: "a-1", text: "We ship on Friday." }], pending: [] });
		expect(after[1]?.speaker).toBe(PROVISIONAL);
		expect(after[1]?.pending.map((s) => s.segment_id)).toEqual(["a-2"]);

		const transcript = await json<{ segments: Record<string, unknown>[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(transcript.segments.map((s) => [s.segment_id, s.speaker, s.speaker_source, s.completed])).toEqual([
			["a-1", "Cleo", "active_speaker", true],
			["a-2", PROVISIONAL, "none", false],
		]);
		socket.close();
	});

	it("replaces the speaker of a confirmed segment rebound later, and keeps language, confidence and words", async () => {
		const { key, headers } = await userWithKey();
		const { bot, code } = await liveMeeting(headers);
		const socket = await subscribedTo(key, code);
		const words = [
			{ word: "Guten", start: 3.1, end: 3.4, probability: 0.91 },
			{ word: "Morgen", start: 3.5, end: 3.8 },
		];
		const heard = { text: "Guten Morgen", language: "de", confidence: 0.82, words, completed: true };
		await bot.send({ type: "segment", segment: unattributed(heard) });
		const from = socket.messages.length;
		await bot.send({ type: "segment", segment: unattributed({ ...heard, speaker: "Dan", speaker_source: "active_speaker" }) });
		const [bundle] = await bundlesAfter(socket, from, 1);
		expect(bundle).toMatchObject({
			speaker: "Dan",
			confirmed: [{ segment_id: "a-1", speaker: "Dan", language: "de", confidence: 0.82, words }],
			pending: [],
		});

		const transcript = await json<{ segments: Record<string, unknown>[] }>(
			await call("GET", `/transcripts/google_meet/${code}`, { headers }),
		);
		expect(transcript.segments).toEqual([
			expect.objectContaining({
				segment_id: "a-1",
				speaker: "Dan",
				speaker_source: "active_speaker",
				language: "de",
				confidence: 0.82,
				words,
			}),
		]);
		socket.close();
	});
});
