/**
 * The CPU the bots on this host use, measured: each bot's Chromium process tree (its browser
 * pid and every descendant: renderers, utility processes), with a recording bot's encoder (ffmpeg,
 * the host's child, bot/recording/encoder.ts), is read from `<proc>/<pid>/stat`
 * (utime + stime, and what reaped children used) at most every `sampleMs`, and a bot's use is
 * the CPU time its tree gained between two readings over the time between them, smoothed over
 * about 10 s like PSI's avg10, so one busy second does not swing the host's capacity. Only bots
 * in their lobby or call are measured: Chromium's start is a burst that says nothing of what the
 * bot costs once there.
 */
import { readProcesses, treesOf } from "../process-tree.ts";

/** Clock ticks per second (`getconf CLK_TCK`): 100 on every Linux the host runs on. */
const TICKS_PER_S = 100;
/** Smoothing time constant of a bot's CPU, in ms: like PSI's avg10. */
const SMOOTHING_MS = 10_000;

export interface BotsCpu {
	/** CPU the measured bots use together, in cores (1 = one core busy). */
	used: number;
	/** How many of the bots asked about have a measurement yet (a bot needs two readings). */
	measured: number;
}

interface Reading {
	ticks: number;
	at: number;
	/** Smoothed use in cores; null until a second reading. */
	cores: number | null;
}

export class BotCpuMeter {
	private readonly readings = new Map<number, Reading>();
	private sampledAt = Number.NEGATIVE_INFINITY;
	private readonly options: { procDir: string; sampleMs: number; now: () => number };

	constructor(options: { procDir?: string; sampleMs?: number; now?: () => number } = {}) {
		this.options = { procDir: options.procDir ?? "/proc", sampleMs: options.sampleMs ?? 2_000, now: options.now ?? Date.now };
	}

	/**
	 * The bots' CPU now, given their browsers' pids; reads /proc again when the last reading is
	 * `sampleMs` old. `companions`: processes of a bot outside its browser's tree (its recording's
	 * ffmpeg), by its browser's pid: their trees count with it.
	 */
	measure(browserPids: number[], companions: ReadonlyMap<number, number[]> = new Map()): BotsCpu {
		const now = this.options.now();
		// A new bot waits for the next reading: capacity is asked every poll, and /proc is not read that often.
		if (now - this.sampledAt >= this.options.sampleMs) this.sample(browserPids, companions, now);
		let used = 0;
		let measured = 0;
		for (const pid of browserPids) {
			const cores = this.readings.get(pid)?.cores;
			if (cores === null || cores === undefined) continue;
			used += cores;
			measured += 1;
		}
		return { used, measured };
	}

	private sample(browserPids: number[], companions: ReadonlyMap<number, number[]>, now: number): void {
		this.sampledAt = now;
		const processes = readProcesses(this.options.procDir);
		const trees = treesOf(processes, [...browserPids, ...[...companions.values()].flat()]);
		for (const pid of [...this.readings.keys()]) if (!browserPids.includes(pid)) this.readings.delete(pid);
		for (const pid of browserPids) {
			// A browser not in /proc (gone, or no /proc at all) has no reading: it counts at the budget.
			if (!processes.has(pid)) {
				this.readings.delete(pid);
				continue;
			}
			const members = [pid, ...(companions.get(pid) ?? [])].flatMap((root) => trees.get(root) ?? []);
			const ticks = members.reduce((sum, member) => sum + (processes.get(member)?.cpuTicks ?? 0), 0);
			const last = this.readings.get(pid);
			if (!last) {
				this.readings.set(pid, { ticks, at: now, cores: null });
				continue;
			}
			const elapsedMs = now - last.at;
			// Ticks are 10 ms: over a much shorter span than a sample's, one tick more or less would swing the figure.
			if (elapsedMs < this.options.sampleMs / 2 || elapsedMs <= 0) continue;
			// A tree can lose time when a member leaves it unreaped (re-parented to init): never below 0.
			const current = Math.max(0, ticks - last.ticks) / TICKS_PER_S / (elapsedMs / 1000);
			const weight = 1 - Math.exp(-elapsedMs / SMOOTHING_MS);
			const cores = last.cores === null ? current : last.cores + (current - last.cores) * weight;
			this.readings.set(pid, { ticks, at: now, cores });
		}
	}
}
