/**
 * How many more bots this host takes now. Every bot is a Chromium (about 250–400 MB in the
 * sandbox bench), so slots alone are not enough: a host shares its machine, and a bot started
 * without memory for it takes every meeting on the host down with it.
 *
 *   free = draining ? 0 : min(slots − running − launching, ⌊(MemAvailable − reserve) / budget⌋ − launching)
 *
 * and 0 while the 1-minute load average is above the core count (BOT_HOST_MAX_LOAD sets another
 * limit: a machine shared with other work may want a lower one). Bots still launching have
 * not used their memory yet, so their budget is taken off what MemAvailable shows.
 */
import { readFileSync } from "node:fs";
import os from "node:os";

/** Memory one bot may use (BOT_MEM_BUDGET_MB): a Chromium in a call, with headroom. */
export const DEFAULT_BOT_MEM_BUDGET_MB = 400;
/** Memory kept for the host process, the OS and page cache (BOT_MEM_RESERVE_MB). */
export const DEFAULT_MEM_RESERVE_MB = 512;

export interface MachineReaders {
	/** MemAvailable in MB (null when unknown: then memory does not limit). */
	memAvailableMb: () => number | null;
	load1: () => number;
	cores: () => number;
}

export const machine: MachineReaders = {
	memAvailableMb: () => memAvailableFrom(readProcMeminfo()),
	load1: () => os.loadavg()[0] ?? 0,
	cores: () => os.availableParallelism(),
};

function readProcMeminfo(): string | null {
	try {
		return readFileSync("/proc/meminfo", "utf8");
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
	/** Load average above which nothing is pulled; default the core count. */
	maxLoad?: number;
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
}

export function capacityOf(
	settings: CapacitySettings,
	state: { running: number; launching: number; draining: boolean; ready: boolean },
): Capacity {
	const readers = { ...machine, ...settings.readers };
	const memAvailable = readers.memAvailableMb();
	const load1 = readers.load1();
	const bySlots = settings.slots - state.running - state.launching;
	const budget = settings.botMemBudgetMb ?? DEFAULT_BOT_MEM_BUDGET_MB;
	const reserve = settings.memReserveMb ?? DEFAULT_MEM_RESERVE_MB;
	const byMemory = memAvailable === null ? bySlots : Math.floor((memAvailable - reserve) / budget) - state.launching;
	const overloaded = load1 > (settings.maxLoad ?? readers.cores());
	const free = state.draining || !state.ready || overloaded ? 0 : Math.max(0, Math.min(bySlots, byMemory));
	return {
		slots: settings.slots,
		running: state.running,
		launching: state.launching,
		free,
		draining: state.draining,
		mem_available_mb: Math.max(0, memAvailable ?? 0),
		load1: Math.max(0, Math.round(load1 * 100) / 100),
	};
}
