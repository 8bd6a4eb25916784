/**
 * Issue 36's "done when", through the public interface: the speech service in the box (on the
 * whisper model the tests generate, started by global-setup.ts as `npm start` starts it) behind a
 * real bot in a sandbox Zoom call whose host turned captions off. The user asks for the `builtin`
 * engine, reads the live transcript on /ws (drafts, then their confirmations) and the stored one
 * after the end. The model's weights are random, so its words mean nothing: what is proved is the
 * pipeline (audio, voice gate, stream, drafts, confirmations, timestamps, sources), not accuracy.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, inject, it } from "vitest";
import { decodeWav } from "../../bot-host/speech/audio.ts";
import { eventually } from "../shared/wait";
import { apiAt, botGateway, nativeId, newAccount, Socket, sandboxObserved, sandboxScenario, wsUrl } from "./client";

interface LiveSegment {
	segment_id: string;
	text: string;
	completed: boolean;
	source?: string | null;
	language: string | null;
}

interface StoredSegment extends LiveSegment {
	speaker: string;
	speaker_source: string;
	absolute_start_time: string | null;
	absolute_end_time: string | null;
}

/** How long a line plays in the meeting: the sandbox's own espeak-ng audio of it (what its page fetches). */
async function spokenSeconds(text: string): Promise<number> {
	const res = await fetch(`${inject("sandboxUrl")}/speech.wav?text=${encodeURIComponent(text)}`);
	const pcm = decodeWav(Buffer.from(await res.arrayBuffer()));
	return pcm.length / 2 / 16_000;
}

/**
 * The capture and the voice gate shift an utterance's edges by a few hundred milliseconds (the
 * gate keeps 200 ms either side of speech); the silences between lines are four seconds, so a
 * segment this close to a line is of that line and one from a silence is far outside every line.
 */
const EDGE_MS = 1_000;

describe("the built-in engine in a meeting without captions", () => {
	it("gives a live transcript of drafts then confirmations, all from builtin, and nothing from the silences", async () => {
		const { key } = await newAccount(botGateway());
		const id = nativeId("zoom");
		// The sandbox speaks its participants' lines round robin: Alice, Bob, Alice.
		const lines = [
			{ speaker: "Alice Archer", text: "The quarterly review starts with the sales figures for the northern region." },
			{ speaker: "Bob Baker", text: "Thanks Alice, the support queue is much shorter than it was in the spring." },
			{ speaker: "Alice Archer", text: "Good, then we can move on to hiring plans for next year." },
		];
		const linesOf = (name: string) => lines.filter((l) => l.speaker === name).map((l) => l.text);
		await sandboxScenario(id, {
			direct_join: true,
			// Zoom hosts often turn captions off: the meeting shows no Captions item at all.
			traps: ["captions_disabled"],
			// Three seconds of silence before the first line and four between the lines.
			speech_start_ms: 3_000,
			speech_gap_ms: 4_000,
			participants: ["Alice Archer", "Bob Baker"].map((name) => ({ name, lines: linesOf(name) })),
		});
		const live = await Socket.open(wsUrl("/ws", botGateway()), { "X-API-Key": key });
		live.send({ action: "subscribe", meetings: [{ platform: "zoom", native_id: id }] });
		await live.waitFor("subscribed", (m) => m.type === "subscribed");

		const sent = await apiAt(botGateway(), "POST", "/bots", {
			key,
			json: { platform: "zoom", native_meeting_id: id, bot_name: "E2E Notetaker", transcription_engine: "builtin", language: "en" },
		});
		expect(sent.status).toBe(201);
		const meetingId = sent.body.id as number;

		const frames = () =>
			live.messages.filter((m) => m.type === "transcript") as unknown as { confirmed: LiveSegment[]; pending: LiveSegment[] }[];
		const spoken = await eventually(
			"the meeting to play every line",
			async () => {
				const attendee = ((await sandboxObserved(id)).attendees as { active_speakers: { speaker: string | null; at: number }[] }[])[0];
				const starts = (attendee?.active_speakers ?? []).filter((s) => s.speaker !== null);
				return starts.length === lines.length ? starts : undefined;
			},
			90_000,
		);
		// When each line was heard in the call: from its start (the page's active speaker) for as long as its audio plays.
		const windows = await Promise.all(
			spoken.map(async (start, i) => {
				const line = lines[i] as (typeof lines)[number];
				expect(start.speaker).toBe(line.speaker);
				return { ...line, from: start.at - EDGE_MS, to: start.at + (await spokenSeconds(line.text)) * 1000 + EDGE_MS };
			}),
		);
		// Confirmations come live, while the call goes on (a line may be cut in more than one).
		const confirmedLive = () => frames().flatMap((f) => f.confirmed);
		await eventually("a live confirmation for each line", () => (confirmedLive().length >= lines.length ? true : undefined), 60_000);
		// Six seconds of silence after the last line before the user stops the bot.
		const lastLineEnded = (windows.at(-1)?.to ?? 0) - EDGE_MS;
		await sleep(Math.max(0, lastLineEnded + 6_000 - Date.now()));
		expect((await apiAt(botGateway(), "DELETE", `/bots/zoom/${id}`, { key })).status).toBe(204);
		const meeting = await eventually(
			"the meeting to end",
			async () => {
				const m = (await apiAt(botGateway(), "GET", `/meetings/${meetingId}`, { key })).body as {
					status: string;
					data: Record<string, unknown>;
				};
				return m.status === "completed" || m.status === "failed" ? m : undefined;
			},
			60_000,
		);
		expect(meeting).toMatchObject({ status: "completed", data: { transcription_engine: "builtin" } });

		// Live: drafts (completed false, in `pending`) come first, each confirmed later under its segment_id.
		const drafts = frames().flatMap((f, at) => f.pending.map((segment) => ({ segment, at })));
		const confirmations = frames().flatMap((f, at) => f.confirmed.map((segment) => ({ segment, at })));
		expect(drafts.length).toBeGreaterThan(0);
		for (const { segment, at } of drafts) {
			expect(segment).toMatchObject({ completed: false, source: "builtin" });
			const confirmation = confirmations.find((c) => c.segment.segment_id === segment.segment_id);
			expect(confirmation, `draft ${segment.segment_id} confirmed`).toBeDefined();
			expect(confirmation?.at).toBeGreaterThan(at);
		}
		for (const { segment } of confirmations) {
			expect(segment).toMatchObject({ completed: true, source: "builtin", language: "en" });
			expect(segment.text.trim().length).toBeGreaterThan(0);
		}

		// Stored: only the confirmations, each inside a line's time; none in the silences around them.
		const transcript = await apiAt(botGateway(), "GET", `/transcripts/zoom/${id}`, { key });
		expect(transcript.status).toBe(200);
		const segments = (transcript.body as { segments: StoredSegment[] }).segments;
		expect(segments.map((s) => s.segment_id).sort()).toEqual([...new Set(confirmations.map((c) => c.segment.segment_id))].sort());
		const heard = windows.map(() => 0);
		for (const s of segments) {
			expect(s).toMatchObject({ completed: true, source: "builtin", language: "en" });
			const [from, to] = [Date.parse(s.absolute_start_time ?? ""), Date.parse(s.absolute_end_time ?? "")];
			const line = windows.findIndex((w) => from >= w.from && to <= w.to);
			expect(line, `"${s.text}" (${new Date(from).toISOString()} to ${new Date(to).toISOString()}) inside a spoken line`).not.toBe(-1);
			heard[line] = (heard[line] ?? 0) + 1;
			// No captions name anyone: the speaker is whoever the meeting showed speaking over the segment.
			expect(s).toMatchObject({ speaker: windows[line]?.speaker, speaker_source: "active_speaker" });
		}
		// Every line has its confirmed segment.
		expect(heard.every((n) => n > 0)).toBe(true);
		live.close();
	});
});
