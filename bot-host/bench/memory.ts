/**
 * Memory per bot at scale, in the sandbox: `node bot-host/bench/bench.ts --memory 1,5,20`. With 0, then
 * each count of bots in a meeting at once, it sums the PSS (proportional set size: a page shared
 * by n processes counts 1/n to each, so the sum is what the machine really spends) of every bot's
 * Chromium tree and of the host process, and gives the marginal cost of one more bot between
 * steps. The breakdown by Chromium process kind and by anonymous, file-backed and shared memory
 * (/proc/<pid>/smaps_rollup) says what bounds that cost.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { processTree } from "../process-tree.ts";
import { startBenchRig } from "./rig.ts";

export interface MemoryStep {
	bots: number;
	/** Every bot's Chromium tree plus the host process (which here also runs the sandbox and the room). */
	total_pss_mb: number;
	host_pss_mb: number;
	chromium_pss_mb: number;
	/** Chromium PSS divided by the bots. */
	average_per_bot_mb: number;
	/** (total − total of the previous step) / (bots − bots of the previous step). */
	marginal_per_bot_mb: number;
	/** Chromium PSS by process kind (browser, renderer, gpu-process, utility, zygote), per bot. */
	per_bot_by_kind_mb: Record<string, number>;
	/** Chromium PSS by backing, per bot: anonymous (heaps), file (libraries, fonts), shmem (audio and frame buffers). */
	per_bot_by_backing_mb: { anon: number; file: number; shmem: number };
	processes_per_bot: number;
	load1: number;
}

export interface MemoryBench {
	sandboxed: boolean;
	steps: MemoryStep[];
	machine: { cores: number; mem_total_mb: number; load_before: number[] };
}

interface ProcessMemory {
	pid: number;
	kind: string;
	pss: number;
	anon: number;
	file: number;
	shmem: number;
}

export async function runMemoryBench(counts: number[] = [1, 5, 20]): Promise<MemoryBench> {
	const loadBefore = os.loadavg().map((l) => Math.round(l * 100) / 100);
	const most = Math.max(...counts);
	const rig = await startBenchRig({ slots: most, botName: "Memory Bot", codePrefix: "mem" });
	const { host } = rig;
	const running: number[] = [];
	const spawn = async () => {
		running.push((await rig.spawn({ direct_join: true, participants: [{ name: "Host" }] })).meetingId);
	};

	const sample = (previous: { bots: number; total: number }): MemoryStep => {
		const chromium = running.flatMap((id) => {
			const pid = host.bots.get(id)?.browserPid;
			return pid ? processTree(pid).map(processMemory) : [];
		});
		const hostPss = processMemory(process.pid).pss;
		const chromiumPss = sum(chromium.map((p) => p.pss));
		const total = hostPss + chromiumPss;
		const bots = running.length;
		const perBot = (kb: number) => (bots ? round(kb / bots / 1024) : 0);
		const kinds = new Map<string, number>();
		for (const p of chromium) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + p.pss);
		return {
			bots,
			total_pss_mb: round(total / 1024),
			host_pss_mb: round(hostPss / 1024),
			chromium_pss_mb: round(chromiumPss / 1024),
			average_per_bot_mb: perBot(chromiumPss),
			marginal_per_bot_mb: bots > previous.bots ? round((total - previous.total) / (bots - previous.bots) / 1024) : 0,
			per_bot_by_kind_mb: Object.fromEntries([...kinds].map(([kind, kb]) => [kind, perBot(kb)])),
			per_bot_by_backing_mb: {
				anon: perBot(sum(chromium.map((p) => p.anon))),
				file: perBot(sum(chromium.map((p) => p.file))),
				shmem: perBot(sum(chromium.map((p) => p.shmem))),
			},
			processes_per_bot: bots ? round(chromium.length / bots) : 0,
			load1: round(os.loadavg()[0] ?? 0),
		};
	};

	try {
		const settle = () => new Promise((r) => setTimeout(r, 5_000));
		await settle();
		const idle = sample({ bots: 0, total: 0 });
		const steps: MemoryStep[] = [idle];
		let previous = { bots: 0, total: idle.total_pss_mb * 1024 };
		for (const count of [...counts].sort((a, b) => a - b)) {
			// A few at a time, as a host pulling from the queue would start them.
			while (running.length < count) {
				const batch = Math.min(5, count - running.length);
				await Promise.all(Array.from({ length: batch }, spawn));
			}
			await settle();
			const step = sample(previous);
			steps.push(step);
			previous = { bots: step.bots, total: step.total_pss_mb * 1024 };
		}
		return {
			sandboxed: rig.sandboxed,
			steps,
			machine: { cores: os.cpus().length, mem_total_mb: Math.round(os.totalmem() / 1_048_576), load_before: loadBefore },
		};
	} finally {
		await Promise.all(running.map(rig.stop));
		await rig.close();
	}
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const round = (n: number) => Math.round(n * 10) / 10;

/** PSS and its backing (kB) from smaps_rollup; the kind from Chromium's `--type=` flag. */
function processMemory(pid: number): ProcessMemory {
	try {
		const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
		const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
		const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
		const type = cmdline.find((a) => a.startsWith("--type="))?.slice("--type=".length);
		const service = cmdline
			.find((a) => a.startsWith("--utility-sub-type="))
			?.split(".")
			.at(-2);
		const kind = type === "utility" && service ? `utility:${service}` : (type ?? "browser");
		return { pid, kind, pss: field("Pss"), anon: field("Pss_Anon"), file: field("Pss_File"), shmem: field("Pss_Shmem") };
	} catch {
		return { pid, kind: "gone", pss: 0, anon: 0, file: 0, shmem: 0 };
	}
}
