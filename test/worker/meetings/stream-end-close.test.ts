/**
 * Every open meeting stream closes right after `meeting-end` (docs/meeting-stream.md#events-and-resume),
 * whatever the copilot did before (never started, started with or without a model, started and
 * stopped), whether the meeting had transcript or none, and how long the stream sat idle before;
 * opened on the plan before the bot or in the call, and ended by the bot or by a user's stop.
 */
import { describe, expect, it } from "vitest";
import type { MeetingStreamEvent as Frame } from "../../../src/agent/meeting-stream-events";
import { meetCode } from "../../shared/meetings";
import { copilotOwner, processCopilot, said, startCopilot } from "../agent/copilot-helpers";
import { readToTheEnd, SseReader } from "../agent/sse";
import { call } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { createPlan, meetUrl, segment, sendBot } from "./helpers";

const COPILOTS = ["never started", "started", "started with a model", "started and stopped"] as const;
const OPENED = ["on the plan", "in the call"] as const;
const ENDS = ["by the bot", "by a user stop"] as const;
/** Idle before the end, against the tests' keepalive of 500 ms: none, or long enough for several pings and access checks. */
const IDLES_MS = [0, 1_600];

/** Every copilot, transcript and idle combination; where the stream was opened and how the meeting ended take turns across them. */
const combos = COPILOTS.flatMap((copilot) =>
	[true, false].flatMap((transcript) => IDLES_MS.map((idleMs) => ({ copilot, transcript, idleMs }))),
).map((combo, i) => ({ ...combo, opened: OPENED[i % 2] ?? "in the call", end: ENDS[Math.floor(i / 2) % 2] ?? "by the bot" }));

const ENDINGS = {
	"by the bot": { type: "meeting-end", status: "completed", completion_reason: "left_alone" },
	"by a user stop": { type: "meeting-end", status: "completed", completion_reason: "stopped" },
} as const;

describe("a meeting stream closes right after meeting-end", () => {
	it.each(combos)(
		"copilot $copilot, transcript $transcript, opened $opened, ended $end, idle $idleMs ms",
		{ timeout: 30_000 },
		async ({ copilot, transcript, opened, end, idleMs }) => {
			const owner = await copilotOwner(copilot === "started with a model");
			const code = meetCode();
			if (copilot === "never started") await createPlan(owner.headers, { meeting_url: meetUrl(code) });
			else await startCopilot(owner.headers, code);
			if (copilot === "started and stopped") expect((await processCopilot(owner.headers, code, false)).status).toBe(202);
			const fresh = (lastEventId?: number) =>
				call("GET", `/agent/meeting/stream?meeting_id=${code}`, {
					headers: lastEventId === undefined ? owner.headers : { ...owner.headers, "Last-Event-ID": String(lastEventId) },
				});
			const open = async () => {
				const res = await fresh();
				expect(res.status).toBe(200);
				return new SseReader<Frame>(res);
			};
			const early = opened === "on the plan" ? await open() : null;
			const meeting = await sendBot(owner.headers, code);
			const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
			await bot.status("active");
			const reader = early ?? (await open());
			if (transcript) {
				await bot.send(said("s-1", "Alice", "We ship on Monday"));
				expect((await reader.until("transcript")).at(-1)?.frame.type).toBe("transcript");
			}
			await new Promise((r) => setTimeout(r, idleMs));
			if (end === "by a user stop")
				expect((await call("DELETE", `/bots/google_meet/${code}`, { headers: owner.headers })).status).toBe(204);
			// The bot's end, with a line it flushed as it left already on its way behind it, as a real bot's may be.
			const seq = transcript ? 3 : 2;
			const at = new Date().toISOString();
			bot.channel.send({ type: "status", status: "completed", completion_reason: ENDINGS[end].completion_reason, timestamp: at, seq });
			bot.channel.send({ type: "segment", segment: segment({ segment_id: "late", text: "Said as it left" }), seq: seq + 1 });
			const toEnd = (await reader.until("meeting-end")).filter((e) => e.frame.type !== "ping");
			expect(toEnd.at(-1)?.frame).toEqual(ENDINGS[end]);
			// Nothing after the end, not even a ping: the stream is over.
			const after = await Promise.race([
				reader.next().then((e) => (e ? `event ${e.frame.type}` : "closed")),
				new Promise((r) => setTimeout(() => r("still open"), 3_000)),
			]);
			expect(after).toBe("closed");
			// A reader who comes after the end, or resumes after it, gets the same last event and the close.
			const replayed = await readToTheEnd<Frame>(await fresh());
			expect(replayed.at(-1)).toEqual(toEnd.at(-1));
			expect(await readToTheEnd<Frame>(await fresh(replayed.at(-1)?.id))).toEqual([]);
		},
	);
});
