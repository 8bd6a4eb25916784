/**
 * What the density bench (scripts/bench/density.mjs) reads from /proc: CPU time of process
 * trees over a window (utime + stime of every process in the tree, in % of one core), their
 * PSS, and how busy the whole machine was meanwhile, so a figure taken on a shared machine
 * says under what load it was taken.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { processTree } from "../process-tree.ts";

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const TICKS_PER_S = 100;

/** utime + stime of one process, in ticks; 0 once it is gone. */
function cpuTicks(pid: number): number {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// Fields after the parenthesised name: state is 3rd overall, utime 14th, stime 15th.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		return Number(fields[11]) + Number(fields[12]);
	} catch {
		return 0;
	}
}

/** PSS of one process in kB (a page shared by n processes counts 1/n: the sum is what the machine spends). */
function pssKb(pid: number): number {
	try {
		return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
	} catch {
		return 0;
	}
}

/** A group of processes to measure: a tree under `root`, or only `root` itself. */
export interface Measured {
	name: string;
	root: number;
	/** Count the root's descendants but not the root (the bots' Chromiums under their host). */
	descendantsOnly?: boolean;
	/** Count the root only (the host process without its Chromiums). */
	rootOnly?: boolean;
	/** Count only processes of this command name (/proc/<pid>/comm): the bots' displays, `Xvfb`. */
	command?: string;
}

function commandOf(pid: number): string {
	try {
		return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
	} catch {
		return "";
	}
}

function pidsOf(m: Measured): number[] {
	if (m.rootOnly) return [m.root];
	const tree = processTree(m.root);
	const members = m.descendantsOnly ? tree.slice(1) : tree;
	return m.command ? members.filter((pid) => commandOf(pid) === m.command) : members;
}

/** Busy and total jiffies of all cores together, from /proc/stat. */
function machineJiffies(): { busy: number; total: number } {
	const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
	const total = cpu.reduce((a, b) => a + b, 0);
	// idle and iowait are the 4th and 5th.
	return { busy: total - (cpu[3] ?? 0) - (cpu[4] ?? 0), total };
}

/** CPU pressure (PSI "some" avg60, %): the share of time something waited for a core. Null without PSI. */
export function cpuPressure(): number | null {
	try {
		return Number(/^some .*avg60=([\d.]+)/m.exec(readFileSync("/proc/pressure/cpu", "utf8"))?.[1] ?? Number.NaN);
	} catch {
		return null;
	}
}

export interface CpuWindow {
	seconds: number;
	/** Per group, CPU time over the window in % of one core (100 = a whole core the whole time). */
	percent: Record<string, number>;
	machine: {
		cores: number;
		/** All cores busy, % of the machine (100 = every core the whole time). */
		busy_pct: number;
		/** Busy time of processes outside the measured groups, in % of one core: the shared machine's other load. */
		others_core_pct: number;
		cpu_pressure_avg60: number | null;
		load1: number;
	};
}

/**
 * Starts a CPU window over these groups; `end()` reads them again. A process that starts
 * inside the window counts from zero; one that ends inside it loses what it used (rare in a
 * steady meeting: Chromium keeps its processes).
 */
export function startCpuWindow(groups: Measured[]): { end(): CpuWindow } {
	const startedAt = performance.now();
	const machineAtStart = machineJiffies();
	const atStart = new Map<number, number>();
	for (const g of groups) for (const pid of pidsOf(g)) atStart.set(pid, cpuTicks(pid));
	return {
		end() {
			const seconds = (performance.now() - startedAt) / 1000;
			const percent: Record<string, number> = {};
			// Groups may overlap (the displays are among the bots): each process counts once for the machine.
			const counted = new Map<number, number>();
			for (const g of groups) {
				let ticks = 0;
				for (const pid of pidsOf(g)) {
					const used = Math.max(0, cpuTicks(pid) - (atStart.get(pid) ?? 0));
					counted.set(pid, used);
					ticks += used;
				}
				percent[g.name] = round((ticks / TICKS_PER_S / seconds) * 100);
			}
			const ours = [...counted.values()].reduce((a, b) => a + b, 0);
			const machineAtEnd = machineJiffies();
			const busy = machineAtEnd.busy - machineAtStart.busy;
			const total = machineAtEnd.total - machineAtStart.total;
			const cores = os.cpus().length;
			return {
				seconds: round(seconds),
				percent,
				machine: {
					cores,
					busy_pct: total > 0 ? round((busy / total) * 100) : 0,
					// /proc/stat counts in USER_HZ jiffies too.
					others_core_pct: round((Math.max(0, busy - ours) / TICKS_PER_S / seconds) * 100),
					cpu_pressure_avg60: cpuPressure(),
					load1: round(os.loadavg()[0] ?? 0),
				},
			};
		},
	};
}

/** PSS of a group, in MB. */
export function groupPssMb(group: Measured): number {
	return round(pidsOf(group).reduce((sum, pid) => sum + pssKb(pid), 0) / 1024);
}

/** How many processes the group has now (the host's Chromiums, to see them all gone between steps). */
export function groupSize(group: Measured): number {
	return pidsOf(group).length;
}

const round = (n: number) => Math.round(n * 10) / 10;
