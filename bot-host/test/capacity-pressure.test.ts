/**
 * Capacity from measured pressure and what the bots really cost, read from a fake /proc
 * directory with real files (fake-proc.ts): PSI's `some avg10` for CPU and memory, each bot's
 * Chromium tree CPU from `<pid>/stat`, the lone-bot rule, and the load average where the kernel
 * has no PSI.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { BotCpuMeter } from "../fleet/bot-cpu.ts";
import { type CapacitySettings, capacityOf, type HostLoad } from "../fleet/capacity.ts";
import { pressureFrom, readPressure } from "../fleet/pressure.ts";
import { processTree, readProcesses } from "../process-tree.ts";
import { FakeProc } from "./fake-proc.ts";

const procs: FakeProc[] = [];
afterEach(() => {
	for (const proc of procs.splice(0)) proc.remove();
});
/** A 2-core machine with plenty of memory and disk, seen through a fake /proc holding `cpu` and `memory` pressure. */
function twoCores(cpu: number | null, memory: number | null = 0, load1 = 0) {
	const proc = new FakeProc().pressure("cpu", cpu).pressure("memory", memory).meminfo(24_000);
	procs.push(proc);
	const settings: CapacitySettings = {
		slots: 20,
		procDir: proc.dir,
		readers: { load1: () => load1, cores: () => 2, diskFreeMb: () => 64_000 },
	};
	return { proc, settings };
}
const idle: HostLoad = { running: 0, launching: 0, draining: false, ready: true };
/** `count` running bots measured at `pct` percent of a core each. */
const measured = (count: number, pct: number): HostLoad => ({
	...idle,
	running: count,
	botsCpu: { used: (count * pct) / 100, measured: count },
});

describe("pressure (PSI) as the kernel writes it", () => {
	it("reads `some avg10` in percent from <proc>/pressure/cpu and memory, and null where there is no PSI", () => {
		const { proc } = twoCores(91.2, 34.5);
		expect(readPressure(proc.dir, "cpu")).toBe(91.2);
		expect(readPressure(proc.dir, "memory")).toBe(34.5);
		proc.pressure("memory", null);
		expect(readPressure(proc.dir, "memory")).toBeNull();
		expect(readPressure("/no/such/proc", "cpu")).toBeNull();
		// The CPU file of kernels before 5.13 has no `full` line; the figure is the `some` line's either way.
		expect(pressureFrom("some avg10=12.50 avg60=3.00 avg300=1.00 total=99\n")).toBe(12.5);
		expect(pressureFrom("full avg10=12.50 avg60=3.00 avg300=1.00 total=99\n")).toBeNull();
		expect(pressureFrom("")).toBeNull();
	});

	it("is read from the proc root it is given, with MemAvailable beside it", () => {
		const { settings } = twoCores(7.25, 1.5);
		expect(capacityOf(settings, idle)).toMatchObject({ cpu_pressure: 7.25, mem_pressure: 1.5, mem_available_mb: 24_000, cores: 2 });
	});
});

describe("a host under pressure", () => {
	it("takes no work while CPU pressure is above BOT_HOST_MAX_CPU_PRESSURE (50%), and takes it again below", () => {
		const { proc, settings } = twoCores(62.5);
		const oneBot = measured(1, 10);
		expect(capacityOf(settings, oneBot)).toMatchObject({
			free: 0,
			limited_by: ["cpu"],
			refusing: "CPU pressure 62.5% (limit 50%)",
		});
		proc.pressure("cpu", 49);
		// ⌊(170% − 10%) / 10%⌋ = 16 by CPU.
		expect(capacityOf(settings, oneBot)).toMatchObject({ free: 16, limited_by: [], refusing: null });
		expect(capacityOf({ ...settings, maxCpuPressure: 40 }, oneBot).limited_by).toEqual(["cpu"]);
		// A bot still launching counts as one on the host: the pressure may well be its own start.
		proc.pressure("cpu", 62.5);
		expect(capacityOf(settings, { ...idle, launching: 1 }).limited_by).toEqual(["cpu"]);
	});

	it("takes no work while memory pressure is above BOT_HOST_MAX_MEM_PRESSURE (20%), and takes it again below", () => {
		const { proc, settings } = twoCores(0, 25);
		expect(capacityOf(settings, measured(2, 10))).toMatchObject({
			free: 0,
			limited_by: ["memory_pressure"],
			refusing: "memory pressure 25% (limit 20%)",
		});
		proc.pressure("memory", 20);
		expect(capacityOf(settings, measured(2, 10))).toMatchObject({ free: 15, limited_by: [] });
		// Both at once: each named, in the order of HOST_LIMITS.
		proc.pressure("cpu", 80).pressure("memory", 30);
		expect(capacityOf(settings, measured(2, 10))).toMatchObject({
			limited_by: ["cpu", "memory_pressure"],
			refusing: "CPU pressure 80% (limit 50%); memory pressure 30% (limit 20%)",
		});
	});

	it("starts a lone bot at once under the machine's own pressure: with no bot, only pressure above 90% refuses", () => {
		const { proc, settings } = twoCores(85, 60);
		// Another tenant keeps the CPU 85% and memory 60% pressed: the first bot starts anyway.
		expect(capacityOf(settings, idle)).toMatchObject({ free: 11, limited_by: [], refusing: null });
		// Once it runs, the usual limits hold for the next.
		expect(capacityOf(settings, measured(1, 10)).limited_by).toEqual(["cpu", "memory_pressure"]);
		// Extreme pressure stops even the first, and says that the limit is the idle one.
		proc.pressure("cpu", 95.5).pressure("memory", 0);
		expect(capacityOf(settings, idle)).toMatchObject({
			free: 0,
			limited_by: ["cpu"],
			refusing: "CPU pressure 95.5% (limit 90% while this host runs no bot)",
		});
		expect(capacityOf({ ...settings, idleMaxPressure: 99 }, idle).free).toBe(11);
		// An idle limit below the usual one never tightens it.
		proc.pressure("cpu", 45);
		expect(capacityOf({ ...settings, idleMaxPressure: 30 }, idle).free).toBe(11);
	});

	it("falls back to the load average where the kernel has no PSI, and ignores the load average where it has", () => {
		const withPsi = twoCores(10, 0, 3.4);
		// A load of 3.4 on 2 cores, but nothing waits much: PSI decides, and the host takes work.
		expect(capacityOf(withPsi.settings, idle)).toMatchObject({ free: 11, limited_by: [], load1: 3.4 });
		const without = twoCores(null, null, 3.4);
		expect(capacityOf(without.settings, idle)).toMatchObject({
			free: 0,
			cpu_pressure: null,
			mem_pressure: null,
			limited_by: ["load"],
			refusing: "load average 3.4 (limit 2; no PSI on this kernel)",
		});
		expect(capacityOf({ ...without.settings, maxLoad: 4 }, idle).free).toBe(11);
		without.proc.pressure("cpu", 10);
		expect(capacityOf(without.settings, idle).limited_by).toEqual([]);
	});
});

describe("CPU for bots", () => {
	it("counts each bot at BOT_CPU_BUDGET_PCT (15% of a core) until one is measured: 11 on an idle 2-core host", () => {
		const { settings } = twoCores(0);
		// ⌊2 cores × 85% / 15%⌋ = 11; bots launching take theirs off.
		expect(capacityOf(settings, idle)).toMatchObject({
			free: 11,
			bots_cpu_pct: 0,
			cpu_per_bot_pct: 15,
			cpu_per_bot_measured: false,
			cpu_for_bots_pct: 170,
		});
		expect(capacityOf(settings, { ...idle, launching: 3 }).free).toBe(8);
		// Running but not measured yet: counted at the budget too.
		expect(capacityOf(settings, { ...idle, running: 4 })).toMatchObject({ free: 7, bots_cpu_pct: 60 });
		expect(capacityOf({ ...settings, botCpuBudgetPct: 40 }, idle).free).toBe(4);
		expect(capacityOf({ ...settings, cpuTargetPct: 50 }, idle).free).toBe(6);
	});

	it("costs a bot what the running ones measure on average, and fits 10 sandbox bots on 2 cores", () => {
		const { settings } = twoCores(0);
		// Three bots measured at 60% of a core together: 20% each, ⌊(170 − 60) / 20⌋ = 5 more.
		expect(capacityOf(settings, measured(3, 20))).toMatchObject({
			free: 5,
			bots_cpu_pct: 60,
			cpu_per_bot_pct: 20,
			cpu_per_bot_measured: true,
		});
		// Two of three measured at 10% each; the third counts at their mean: (170 − 30) / 10 = 14, slots leave 17.
		expect(capacityOf(settings, { ...idle, running: 3, botsCpu: { used: 0.2, measured: 2 } })).toMatchObject({
			free: 14,
			bots_cpu_pct: 30,
		});
		// Nine at 17% each leave room for a tenth, not an eleventh.
		expect(capacityOf(settings, measured(9, 17)).free).toBe(1);
		expect(capacityOf(settings, measured(10, 17))).toMatchObject({
			free: 0,
			limited_by: ["cpu"],
			refusing: "CPU for bots taken: 170% of 170% (2 cores × 85%) at 17% per bot",
		});
		// A bot idle in its lobby counts at least 2% of a core, so it cannot make room for hundreds:
		// with 10% of a core for bots, ⌊(10 − 0.1) / 2⌋ = 4 more, not 99.
		expect(capacityOf({ ...settings, cpuTargetPct: 5 }, measured(1, 0.1))).toMatchObject({ cpu_per_bot_pct: 2, free: 4 });
	});
});

describe("the bots' CPU, measured in /proc", () => {
	it("sums each bot's Chromium tree (utime + stime, and what it reaped) between readings, smoothed, per bot", () => {
		const proc = new FakeProc();
		procs.push(proc);
		let now = 1_000_000;
		const meter = new BotCpuMeter({ procDir: proc.dir, sampleMs: 2_000, now: () => now });
		// Bot A: a browser (pid 100) with a renderer (101) and its child (102); bot B: a browser alone (200).
		// A process of someone else (300) and one of this host but no bot's (400 under 1) must not count.
		proc
			.process(100, { ppid: 1, utime: 1_000, stime: 200, comm: "chromium (bot) x" })
			.process(101, { ppid: 100, utime: 500 })
			.process(102, { ppid: 101, utime: 10 })
			.process(200, { ppid: 1, utime: 50 })
			.process(300, { ppid: 1, utime: 5_000 })
			.process(400, { ppid: 1, utime: 5_000 });
		// The first reading measures nothing: a rate needs two.
		expect(meter.measure([100, 200])).toEqual({ used: 0, measured: 0 });

		// 2 s later: A's tree gained 60 ticks (0.6 s: 30% of a core), B's 20 (10%); the others 1000 each.
		now += 2_000;
		proc
			.process(100, { ppid: 1, utime: 1_020, stime: 210, comm: "chromium (bot) x" })
			.process(101, { ppid: 100, utime: 525 })
			.process(102, { ppid: 101, utime: 15 })
			.process(200, { ppid: 1, utime: 70 })
			.process(300, { ppid: 1, utime: 6_000 })
			.process(400, { ppid: 1, utime: 6_000 });
		const first = meter.measure([100, 200]);
		expect(first.measured).toBe(2);
		expect(first.used).toBeCloseTo(0.4, 6);

		// Read again within the sample time: the same figures, /proc not read again.
		proc.process(200, { ppid: 1, utime: 1_000 });
		expect(meter.measure([100, 200]).used).toBeCloseTo(0.4, 6);

		// The renderer 102 ended and 101 reaped it (its time moved to cutime); B now at 0%.
		// A's tree gained 40 ticks over 2 s (20%), smoothed with its 30% over about 10 s.
		now += 2_000;
		proc
			.end(102)
			.process(101, { ppid: 100, utime: 545, cutime: 15 })
			.process(100, { ppid: 1, utime: 1_040, stime: 210, comm: "chromium (bot) x" })
			.process(200, { ppid: 1, utime: 70 });
		const smoothed = meter.measure([100, 200]);
		const weight = 1 - Math.exp(-2_000 / 10_000);
		expect(smoothed.used).toBeCloseTo(0.3 + (0.2 - 0.3) * weight + 0.1 + (0 - 0.1) * weight, 6);

		// B's browser ended (its pid no longer asked about, and gone from /proc); a new bot C is read once, not yet measured.
		proc.end(200).process(500, { ppid: 1, utime: 10 });
		now += 2_000;
		const later = meter.measure([100, 500]);
		expect(later.measured).toBe(1);
	});

	it("counts a recording bot's encoder (the host's child, not its browser's) with its bot", () => {
		const proc = new FakeProc();
		procs.push(proc);
		let now = 0;
		const meter = new BotCpuMeter({ procDir: proc.dir, sampleMs: 2_000, now: () => now });
		// Bot A's browser (100) and its ffmpeg (150, under the host 1); bot B's browser (200) records nothing.
		proc.process(100, { ppid: 1, utime: 100 }).process(150, { ppid: 1, utime: 0, comm: "ffmpeg" }).process(200, { ppid: 1, utime: 100 });
		const companions = new Map([
			[100, [150]],
			[200, []],
		]);
		meter.measure([100, 200], companions);
		// 2 s later: A's browser gained 20 ticks and its encoder 50 (35% of a core together); B's browser 20 (10%).
		now += 2_000;
		proc.process(100, { ppid: 1, utime: 120 }).process(150, { ppid: 1, utime: 50, comm: "ffmpeg" }).process(200, { ppid: 1, utime: 120 });
		const measured = meter.measure([100, 200], companions);
		expect(measured.measured).toBe(2);
		expect(measured.used).toBeCloseTo(0.45, 6);
	});

	it("measures nothing where there is no /proc (macOS): every bot then counts at the budget", () => {
		let now = 0;
		const meter = new BotCpuMeter({ procDir: "/no/such/proc", now: () => now });
		meter.measure([4242]);
		now += 10_000;
		expect(meter.measure([4242])).toEqual({ used: 0, measured: 0 });
	});

	it("reads the real /proc the same way: this process, its parent, and CPU time it has used", () => {
		const processes = readProcesses();
		const self = processes.get(process.pid);
		expect(self?.ppid).toBe(process.ppid);
		// Fields 14–17 of the real stat line: what this test process has spent so far.
		const fields = readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
		expect(Number(fields[11])).toBeGreaterThan(0);
		expect(self?.cpuTicks).toBeGreaterThanOrEqual(Number(fields[11]));
		expect(processTree(process.ppid)).toContain(process.pid);
	});
});
