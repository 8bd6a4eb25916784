/**
 * A process and everything it started, read from /proc: the bench sums a bot's Chromium tree,
 * the fleet tests kill a host together with its browsers, as a lost machine would, and the host
 * measures the CPU its bots' trees use (fleet/bot-cpu.ts). `procDir` is where /proc is, so tests
 * can read a fake one (BOT_HOST_PROC_DIR).
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessStat {
	ppid: number;
	/**
	 * CPU time in clock ticks: utime + stime, plus cutime + cstime, the times of children it has
	 * reaped, so a renderer that ended still counts for its tree.
	 */
	cpuTicks: number;
}

/** Every process's parent and CPU time, from one pass over `<procDir>/<pid>/stat`; empty without /proc. */
export function readProcesses(procDir = "/proc"): Map<number, ProcessStat> {
	const processes = new Map<number, ProcessStat>();
	let entries: string[];
	try {
		entries = readdirSync(procDir);
	} catch {
		return processes;
	}
	for (const entry of entries) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// Fields after the parenthesised command name: state, ppid, …; utime is the 14th field of the line.
			const stat = readFileSync(`${procDir}/${entry}/stat`, "utf8");
			const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
			const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + (Number(fields[i]) || 0), 0);
			processes.set(Number(entry), { ppid: Number(fields[1]), cpuTicks: ticks });
		} catch {
			// The process ended while we looked.
		}
	}
	return processes;
}

/** Each root with all its descendants among `processes`, root first. */
export function treesOf(processes: Map<number, ProcessStat>, roots: number[]): Map<number, number[]> {
	const children = new Map<number, number[]>();
	for (const [child, { ppid }] of processes) children.set(ppid, [...(children.get(ppid) ?? []), child]);
	const trees = new Map<number, number[]>();
	for (const root of roots) {
		const found: number[] = [];
		const queue = [root];
		for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
			found.push(next);
			queue.push(...(children.get(next) ?? []));
		}
		trees.set(root, found);
	}
	return trees;
}

/** `pid` and all its descendants, `pid` first. */
export function processTree(pid: number, procDir = "/proc"): number[] {
	return treesOf(readProcesses(procDir), [pid]).get(pid) ?? [pid];
}
