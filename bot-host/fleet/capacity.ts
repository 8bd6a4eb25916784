/**
 * How many more bots this host takes now, and if none, why (docs/bot-fleet.md#taking-work).
 * Every bot is a Chromium (about 250–400 MB and a sizeable share of a core in the sandbox
 * bench), so slots alone are not enough: a host shares its machine, and a bot started without
 * memory or CPU for it takes every meeting on the host down with it.
 *
 *   free = min(slots − running − launching,
 *              ⌊(MemAvailable − reserve) / budget⌋ − launching,
 *              ⌊(disk free − disk promised) / (recording cap + profile)⌋,
 *              ⌊(cores × target − bots' CPU) / CPU per bot⌋ − launching)
 *
 * and 0 while draining, not ready, or under pressure: CPU pressure (PSI `some avg10`) above
 * BOT_HOST_MAX_CPU_PRESSURE or memory pressure above BOT_HOST_MAX_MEM_PRESSURE. A host running
 * no bot at all refuses for pressure only above BOT_HOST_IDLE_MAX_PRESSURE: the pressure is
 * then the machine's other work, and one bot must not wait minutes for it to calm down.
 * Where the kernel has no PSI the 1-minute load average stands in, as before: nothing is taken
 * while it is above BOT_HOST_MAX_LOAD (default the core count).
 *
 * CPU: the bots' own use is measured (fleet/bot-cpu.ts); a bot costs the mean of the measured
 * ones, or BOT_CPU_BUDGET_PCT of a core while none has been measured. Bots still launching, and
 * running ones not measured yet, count at that cost. Memory: bots still launching have not used
 * theirs yet, so their budget is taken off what MemAvailable shows.
 *
 * Disk: each bot writes its recording (up to its cap) and a Chromium profile (up to
 * BOT_PROFILE_DISK_MB, past which the bot is stopped: bot/profile-watch.ts) to the temporary
 * directory. A full disk fails every bot's recording on the host, and under Kubernetes a pod
 * past its volume's limit is evicted with all its bots, so another bot is taken only when the
 * free space (statfs) holds what the bots' recordings and profiles may still write, plus one
 * more bot's whole recording and profile, plus BOT_HOST_DISK_RESERVE_MB kept free for the rest
 * (logs, Xvfb, a profile measured between two readings). The next bot is assumed to record: a
 * claim does not say.
 */
import { readFileSync, statfsSync } from "node:fs";
import os from "node:os";
import type { HostLimit } from "../../src/bot-channel/fleet.ts";
import { RECORDING_MAX_BYTES } from "../../src/bot-channel/protocol.ts";
import type { BotsCpu } from "./bot-cpu.ts";
import { readPressure } from "./pressure.ts";

/** Memory one bot may use (BOT_MEM_BUDGET_MB): a Chromium in a call, with headroom. */
export const DEFAULT_BOT_MEM_BUDGET_MB = 400;
/** Memory kept for the host process, the OS and page cache (BOT_MEM_RESERVE_MB). */
export const DEFAULT_MEM_RESERVE_MB = 512;
/** Disk one bot's Chromium profile may take beside its recording (BOT_PROFILE_DISK_MB); past it the bot is stopped. */
export const DEFAULT_PROFILE_DISK_MB = 256;
/** Free disk no bot is counted on (BOT_HOST_DISK_RESERVE_MB): the host stops taking work before it gets there. */
export const DEFAULT_DISK_RESERVE_MB = 256;
/**
 * Share of all cores the bots may use together (BOT_HOST_CPU_TARGET), in percent: the rest is
 * for the host process, the OS, and the bursts of a Chromium starting; 10 bots at 17 % of a core
 * each fit a 2-core host.
 */
export const DEFAULT_CPU_TARGET_PCT = 85;
/** What one bot costs, in percent of a core, until one has been measured (BOT_CPU_BUDGET_PCT). */
export const DEFAULT_BOT_CPU_BUDGET_PCT = 15;
/**
 * CPU pressure (PSI some avg10, percent) above which a host running bots takes no more
 * (BOT_HOST_MAX_CPU_PRESSURE): runnable work waited half the time, and a bot's captions with it.
 */
export const DEFAULT_MAX_CPU_PRESSURE = 50;
/** Memory pressure above which a host takes no more (BOT_HOST_MAX_MEM_PRESSURE): the machine is reclaiming hard. */
export const DEFAULT_MAX_MEM_PRESSURE = 20;
/** Either pressure above which a host running no bot refuses its first (BOT_HOST_IDLE_MAX_PRESSURE): only the extreme. */
export const DEFAULT_IDLE_MAX_PRESSURE = 90;
/** The least a measured bot counts, in percent of a core: a bot idle in a lobby must not make room for hundreds. */
const MIN_BOT_CPU_PCT = 2;
/** `refusing` at most this long (HostReport allows 500). */
const REFUSING_MAX = 500;

const MB = 1024 * 1024;

export interface MachineReaders {
	/** MemAvailable in MB (null when unknown: then memory does not limit). */
	memAvailableMb: () => number | null;
	load1: () => number;
	cores: () => number;
	/** Free space for an unprivileged user where bots write, in MB (null when unknown: then disk does not limit). */
	diskFreeMb: () => number | null;
	/** PSI some avg10 in percent (fleet/pressure.ts); null where the kernel has none. */
	cpuPressure: () => number | null;
	memPressure: () => number | null;
}

/** The machine as `procDir` (BOT_HOST_PROC_DIR, default /proc) shows it. */
export function machineAt(procDir = "/proc"): MachineReaders {
	return {
		memAvailableMb: () => memAvailableFrom(readText(`${procDir}/meminfo`)),
		load1: () => os.loadavg()[0] ?? 0,
		cores: () => os.availableParallelism(),
		diskFreeMb: () => diskFreeMbOf(os.tmpdir()),
		cpuPressure: () => readPressure(procDir, "cpu"),
		memPressure: () => readPressure(procDir, "memory"),
	};
}

/** Free space of the filesystem holding `dir` (statfs: blocks available to non-root × block size), in MB. */
export function diskFreeMbOf(dir: string): number | null {
	try {
		const fs = statfsSync(dir);
		return Math.floor((fs.bavail * fs.bsize) / MB);
	} catch {
		return null;
	}
}

function readText(file: string): string | null {
	try {
		return readFileSync(file, "utf8");
	} catch {
		return null;
	}
}

/** MemAvailable (kB in /proc/meminfo) in MB. */
export function memAvailableFrom(meminfo: string | null): number | null {
	const kb = meminfo ? /^MemAvailable:\s+(\d+)\s*kB/m.exec(meminfo)?.[1] : undefined;
	return kb === undefined ? null : Math.floor(Number(kb) / 1024);
}

export interface CapacitySettings {
	slots: number;
	botMemBudgetMb?: number;
	memReserveMb?: number;
	/** Where /proc is (BOT_HOST_PROC_DIR): PSI, meminfo and the bots' CPU are read there. */
	procDir?: string;
	/** Share of all cores the bots may use together, percent (BOT_HOST_CPU_TARGET). */
	cpuTargetPct?: number;
	/** One bot's CPU until one is measured, percent of a core (BOT_CPU_BUDGET_PCT). */
	botCpuBudgetPct?: number;
	/** PSI limits, percent (BOT_HOST_MAX_CPU_PRESSURE, BOT_HOST_MAX_MEM_PRESSURE, BOT_HOST_IDLE_MAX_PRESSURE). */
	maxCpuPressure?: number;
	maxMemPressure?: number;
	idleMaxPressure?: number;
	/** Load average above which nothing is pulled where there is no PSI; default the core count. */
	maxLoad?: number;
	/** The largest recording file of one bot (BOT_RECORDING_MAX_BYTES); default RECORDING_MAX_BYTES. */
	recordingMaxBytes?: number;
	/** Disk per bot's Chromium profile (BOT_PROFILE_DISK_MB); default DEFAULT_PROFILE_DISK_MB. */
	profileDiskMb?: number;
	/** Free disk kept beyond what the bots may write (BOT_HOST_DISK_RESERVE_MB); default DEFAULT_DISK_RESERVE_MB. */
	diskReserveMb?: number;
	readers?: Partial<MachineReaders>;
}

export interface Capacity {
	slots: number;
	running: number;
	launching: number;
	free: number;
	draining: boolean;
	mem_available_mb: number;
	load1: number;
	disk_free_mb: number;
	/** Disk one more bot needs: what the bots' recordings and profiles may still write, its recording cap and profile, and the reserve. */
	disk_needed_mb: number;
	/** PSI some avg10, percent; null where the kernel has none. */
	cpu_pressure: number | null;
	mem_pressure: number | null;
	cores: number;
	/** CPU the bots use now (the measured ones as measured, the others at the cost per bot), percent of one core. */
	bots_cpu_pct: number;
	/** What one more bot is counted at, percent of one core, and whether running bots measured it (else the budget). */
	cpu_per_bot_pct: number;
	cpu_per_bot_measured: boolean;
	/** What all bots together may use: cores × target, percent of one core. */
	cpu_for_bots_pct: number;
	/** Every limit that keeps `free` at 0, in HOST_LIMITS order; empty while the host takes work. */
	limited_by: HostLimit[];
	/** Why it takes no work, in words ("CPU pressure 91% (limit 50%)", "20 of 20 slots taken"); null while it takes work. */
	refusing: string | null;
}

export interface HostLoad {
	running: number;
	launching: number;
	draining: boolean;
	ready: boolean;
	/** Bytes the bots' recordings may still write (BotSession.recordingRoomLeft, summed). */
	recordingBytesLeft?: number;
	/** Bytes the bots' profiles may still take before each is stopped (BotSession.profileRoomLeft, summed); absent: launching bots' whole profiles. */
	profileBytesLeft?: number;
	/** The running bots' CPU as measured (BotCpuMeter); absent: none measured. */
	botsCpu?: BotsCpu;
}

const pct = (n: number) => Math.round(n * 10) / 10;

export function capacityOf(settings: CapacitySettings, state: HostLoad): Capacity {
	const readers = { ...machineAt(settings.procDir), ...settings.readers };
	const memAvailable = readers.memAvailableMb();
	const diskFree = readers.diskFreeMb();
	const load1 = readers.load1();
	const cores = readers.cores();
	const cpuPressure = readers.cpuPressure();
	const memPressure = readers.memPressure();
	const taken = state.running + state.launching;
	const bySlots = settings.slots - taken;
	const budget = settings.botMemBudgetMb ?? DEFAULT_BOT_MEM_BUDGET_MB;
	const reserve = settings.memReserveMb ?? DEFAULT_MEM_RESERVE_MB;
	const byMemory = memAvailable === null ? bySlots : Math.floor((memAvailable - reserve) / budget) - state.launching;
	const profileMb = settings.profileDiskMb ?? DEFAULT_PROFILE_DISK_MB;
	const perBotMb = (settings.recordingMaxBytes ?? RECORDING_MAX_BYTES) / MB + profileMb;
	// A page can fill any bot's profile up to its limit, running or not.
	const profilesLeftMb = state.profileBytesLeft === undefined ? state.launching * profileMb : state.profileBytesLeft / MB;
	const reserveMb = settings.diskReserveMb ?? DEFAULT_DISK_RESERVE_MB;
	const promisedMb = (state.recordingBytesLeft ?? 0) / MB + profilesLeftMb + reserveMb;
	const byDisk = diskFree === null ? bySlots : Math.floor((diskFree - promisedMb) / perBotMb);

	// CPU in percent of one core throughout.
	const measured = state.botsCpu && state.botsCpu.measured > 0 ? state.botsCpu : null;
	const perBot = measured
		? Math.max(MIN_BOT_CPU_PCT, (measured.used * 100) / measured.measured)
		: (settings.botCpuBudgetPct ?? DEFAULT_BOT_CPU_BUDGET_PCT);
	const botsCpu = (measured ? measured.used * 100 : 0) + (state.running - (measured?.measured ?? 0)) * perBot;
	const forBots = cores * (settings.cpuTargetPct ?? DEFAULT_CPU_TARGET_PCT);
	// The epsilon keeps 170 / 17 at 10, not 9.999….
	const byCpu = Math.floor((forBots - botsCpu) / perBot + 1e-9) - state.launching;

	const idle = taken === 0;
	const idleMax = settings.idleMaxPressure ?? DEFAULT_IDLE_MAX_PRESSURE;
	const cpuLimit = pressureLimit(settings.maxCpuPressure ?? DEFAULT_MAX_CPU_PRESSURE, idle, idleMax);
	const memLimit = pressureLimit(settings.maxMemPressure ?? DEFAULT_MAX_MEM_PRESSURE, idle, idleMax);
	const cpuPressed = cpuPressure !== null && cpuPressure > cpuLimit.value;
	const memPressed = memPressure !== null && memPressure > memLimit.value;
	const maxLoad = settings.maxLoad ?? cores;
	// The load average only where there is no PSI to say whether anything waits.
	const overloaded = cpuPressure === null && load1 > maxLoad;

	const limits: [HostLimit, boolean, string][] = [
		["draining", state.draining, "draining: the host is stopping"],
		["not_ready", !state.ready, "not ready (the host's /health says why)"],
		[
			"cpu",
			cpuPressed || byCpu <= 0,
			[
				...(cpuPressed ? [`CPU pressure ${pct(cpuPressure)}% (limit ${cpuLimit.value}%${cpuLimit.text})`] : []),
				...(byCpu <= 0
					? [
							`CPU for bots taken: ${pct(botsCpu + state.launching * perBot)}% of ${pct(forBots)}% (${cores} cores × ${pct(forBots / cores)}%) at ${pct(perBot)}% per bot`,
						]
					: []),
			].join("; "),
		],
		["memory_pressure", memPressed, `memory pressure ${pct(memPressure ?? 0)}% (limit ${memLimit.value}%${memLimit.text})`],
		["load", overloaded, `load average ${pct(load1)} (limit ${maxLoad}; no PSI on this kernel)`],
		["slots", bySlots <= 0, `${taken} of ${settings.slots} slots taken`],
		[
			"memory",
			byMemory <= 0,
			// Needed: the reserve, and the budget of each bot still launching and of one more.
			`too little memory: ${Math.max(0, memAvailable ?? 0)} MB available, ${reserve + budget * (state.launching + 1)} MB needed`,
		],
		[
			"disk",
			byDisk <= 0,
			`too little disk: ${Math.max(0, diskFree ?? 0)} MB free, ${Math.ceil(promisedMb + perBotMb)} MB needed${reserveMb > 0 ? ` (${reserveMb} MB of it kept free)` : ""}`,
		],
	];
	const applying = limits.filter(([, applies]) => applies);
	const refusing = applying.map(([, , words]) => words).join("; ");
	return {
		slots: settings.slots,
		running: state.running,
		launching: state.launching,
		free: applying.length > 0 ? 0 : Math.min(bySlots, byMemory, byDisk, byCpu),
		draining: state.draining,
		mem_available_mb: Math.max(0, memAvailable ?? 0),
		load1: Math.max(0, Math.round(load1 * 100) / 100),
		disk_free_mb: Math.max(0, diskFree ?? 0),
		disk_needed_mb: Math.ceil(promisedMb + perBotMb),
		cpu_pressure: cpuPressure,
		mem_pressure: memPressure,
		cores,
		bots_cpu_pct: pct(botsCpu),
		cpu_per_bot_pct: pct(perBot),
		cpu_per_bot_measured: measured !== null,
		cpu_for_bots_pct: pct(forBots),
		limited_by: applying.map(([limit]) => limit),
		refusing: applying.length > 0 ? bounded(refusing) : null,
	};
}

/** The pressure limit in force: a host running no bot refuses only extreme pressure, which the words then say. */
function pressureLimit(limit: number, idle: boolean, idleMax: number): { value: number; text: string } {
	return idle && idleMax > limit ? { value: idleMax, text: " while this host runs no bot" } : { value: limit, text: "" };
}

function bounded(text: string): string {
	return text.length <= REFUSING_MAX ? text : `${text.slice(0, REFUSING_MAX - 1)}…`;
}
