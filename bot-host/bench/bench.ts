/**
 * Bot host figures on this machine, in the sandbox: spawn to `active` (p50, p95), caption
 * shown in the meeting to segment at the room (p50, p95), and memory per bot (the Chromium
 * process tree: RSS and PSS) with 1 and with 5 concurrent bots.
 * Run: `npx node bot-host/bench/bench.ts` (prints JSON). Also importable: `runBotHostBench()`.
 * `node bot-host/bench/bench.ts --memory [1,5,20]`: only memory at scale (bot-host/bench/memory.ts):
 * the PSS of every bot's Chromium tree and of the host process with 1, 5 and 20 bots at once,
 * and the marginal cost of one more bot.
 */
import { readFileSync } from "node:fs";
import { processTree } from "../process-tree.ts";
import { statusesOf } from "../test/room.ts";
import { startBenchRig } from "./rig.ts";

export interface BotHostBench {
	spawn_to_active_ms: { runs: number; p50: number; p95: number };
	caption_to_segment_ms: { samples: number; p50: number; p95: number };
	memory_per_bot_mb: { one: { rss: number; pss: number }; five: { rss: number; pss: number } };
}

export async function runBotHostBench(options: { spawnRuns?: number } = {}): Promise<BotHostBench> {
	const { sandbox, room, host, spawn, stop, close } = await startBenchRig({ botName: "Bench Bot", codePrefix: "ben" });
	try {
		const spawnTimes: number[] = [];
		for (let i = 0; i < (options.spawnRuns ?? 8); i++) {
			const bot = await spawn({ direct_join: true, participants: [{ name: "Host" }] });
			spawnTimes.push(bot.spawnToActive);
			await stop(bot.meetingId);
		}

		const talk = await spawn({
			direct_join: true,
			speech_gap_ms: 300,
			participants: [
				{ name: "Ann", lines: ["First point about the budget.", "Second point about hiring.", "Third point about the roadmap."] },
				{ name: "Bo", lines: ["I agree with that.", "Let us follow up next week.", "Sounds good to me."] },
			],
		});
		const totalLines = 6;
		await room.until(
			talk.meetingId,
			(r) => statusesOf(r).length > 0 && r.filter((m) => m.type === "segment" && m.segment.completed).length >= totalLines,
		);
		const bot = host.bots.get(talk.meetingId);
		const memoryOne = bot?.browserPid ? processTreeMemory(bot.browserPid) : { rss: 0, pss: 0 };
		await stop(talk.meetingId);
		const shown = sandbox.observed(talk.code)?.captions_shown ?? [];
		const received = room.received(talk.meetingId);
		const arrivals = room.arrivedAt(talk.meetingId);
		const latencies: number[] = [];
		for (const caption of shown) {
			const i = received.findIndex((m) => m.type === "segment" && m.segment.speaker === caption.speaker && m.segment.text === caption.text);
			const arrived = arrivals[i];
			if (i >= 0 && arrived !== undefined) latencies.push(arrived - caption.at);
		}

		const five = await Promise.all(Array.from({ length: 5 }, () => spawn({ direct_join: true, participants: [{ name: "Host" }] })));
		await new Promise((r) => setTimeout(r, 3_000));
		const perBot = five.map((b) => {
			const pid = host.bots.get(b.meetingId)?.browserPid;
			return pid ? processTreeMemory(pid) : { rss: 0, pss: 0 };
		});
		await Promise.all(five.map((b) => stop(b.meetingId)));

		return {
			spawn_to_active_ms: { runs: spawnTimes.length, p50: percentile(spawnTimes, 50), p95: percentile(spawnTimes, 95) },
			caption_to_segment_ms: { samples: latencies.length, p50: percentile(latencies, 50), p95: percentile(latencies, 95) },
			memory_per_bot_mb: {
				one: memoryOne,
				five: { rss: average(perBot.map((m) => m.rss)), pss: average(perBot.map((m) => m.pss)) },
			},
		};
	} finally {
		await close();
	}
}

function percentile(values: number[], p: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

function average(values: number[]): number {
	return values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : 0;
}

/** RSS and PSS (MB) of a process and all its descendants, from /proc. */
export function processTreeMemory(rootPid: number): { rss: number; pss: number } {
	let rssKb = 0;
	let pssKb = 0;
	for (const pid of processTree(rootPid)) {
		try {
			rssKb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
			pssKb += Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
		} catch {
			// Gone, or not ours to read.
		}
	}
	return { rss: Math.round(rssKb / 1024), pss: Math.round(pssKb / 1024) };
}

if (import.meta.filename === process.argv[1]) {
	const memoryAt = process.argv.indexOf("--memory");
	if (memoryAt >= 0) {
		const { runMemoryBench } = await import("./memory.ts");
		const counts = (process.argv[memoryAt + 1] ?? "1,5,20").split(",").map(Number);
		console.log(JSON.stringify(await runMemoryBench(counts), null, 2));
	} else {
		console.log(JSON.stringify(await runBotHostBench(), null, 2));
	}
}
