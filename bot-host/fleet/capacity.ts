/**
 * How many more bots this host takes now. Every bot is a Chromium (about 250–400 MB in the
 * sandbox bench), so slots alone are not enough: a host shares its machine, and a bot started
 * without memory for it takes every meeting on the host down with it.
 *
 *   free = draining ? 0 : min(slots − running − launching,
 *                             ⌊(MemAvailable − reserve) / budget⌋ − launching,
 *                             ⌊(disk free − disk promised) / (recording cap + profile)⌋)
 *
 * and 0 while the 1-minute load average is above the core count (BOT_HOST_MAX_LOAD sets another
 * limit: a machine shared with other work may want a lower one). Bots still launching have
 * not used their memory yet, so their budget is taken off what MemAvailable shows.
 *
 * Disk: each bot writes its recording (up to its cap) and a Chromium profile to the temporary
 * directory. A full disk fails every bot's recording on the host, and under Kubernetes a pod
 * past its volume's limit is evicted with all its bots, so another bot is taken only when the
 * free space (statfs) holds what the running bots' recordings may still write plus one more
 * bot's whole recording and profile. The next bot is assumed to record: a claim does not say.
 */
import { readFileSync, statfsSync } from "node:fs";
import os from "node:os";
import { RECORDING_MAX_BYTES } from "../../src/bot-channel/protocol.ts";

/** Memory one bot may use (BOT_MEM_BUDGET_MB): a Chromium in a call, with headroom. */
export const DEFAULT_BOT_MEM_BUDGET_MB = 400;
/** Memory kept for the host process, the OS and page cache (BOT_MEM_RESERVE_MB). */
export const DEFAULT_MEM_RESERVE_MB = 512;
/** Disk one bot's Chromium profile may take beside its recording (BOT_PROFILE_DISK_MB). */
export const DEFAULT_PROFILE_DISK_MB = 256;

const MB = 1024 * 1024;

export interface MachineReaders {
	/** MemAvailable in MB (null when unknown: then memory does not limit). */
	memAvailableMb: () => number | null;
	load1: () => number;
	cores: () => number;
	/** Free space for an unprivileged user where bots write, in MB (null when unknown: then disk does not limit). */
	diskFreeMb: () => number | null;
}

export const machine: MachineReaders = {
	memAvailableMb: () => memAvailableFrom(readProcMeminfo()),
	load1: () => os.loadavg()[0] ?? 0,
	cores: () => os.availableParallelism(),
	diskFreeMb: () => diskFreeMbOf(os.tmpdir()),
};

/** Free space of the filesystem holding `dir` (statfs: blocks available to non-root × block size), in MB. */
export function diskFreeMbOf(dir: string): number | null {
	try {
		const fs = statfsSync(dir);
		return Math.floor((fs.bavail * fs.bsize) / MB);
	} catch {
		return null;
	}
}

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
	/** The largest recording file of one bot (BOT_RECORDING_MAX_BYTES); default RECORDING_MAX_BYTES. */
	recordingMaxBytes?: number;
	/** Disk per bot's Chromium profile (BOT_PROFILE_DISK_MB); default DEFAULT_PROFILE_DISK_MB. */
	profileDiskMb?: number;
	readers?: Partial<MachineReaders>;
}

/** What keeps `free` at 0, every one that does; empty while the host takes work. */
export type CapacityLimit = "draining" | "not_ready" | "load" | "slots" | "memory" | "disk";

export interface Capacity {
	slots: number;
	running: number;
	launching: number;
	free: number;
	draining: boolean;
	mem_available_mb: number;
	load1: number;
	disk_free_mb: number;
	/** Disk one more bot needs: what running bots' recordings may still write, plus its recording cap and profile. */
	disk_needed_mb: number;
	limited_by: CapacityLimit[];
}

export interface HostLoad {
	running: number;
	launching: number;
	draining: boolean;
	ready: boolean;
	/** Bytes the bots' recordings may still write (BotSession.recordingRoomLeft, summed). */
	recordingBytesLeft?: number;
}

export function capacityOf(settings: CapacitySettings, state: HostLoad): Capacity {
	const readers = { ...machine, ...settings.readers };
	const memAvailable = readers.memAvailableMb();
	const diskFree = readers.diskFreeMb();
	const load1 = readers.load1();
	const bySlots = settings.slots - state.running - state.launching;
	const budget = settings.botMemBudgetMb ?? DEFAULT_BOT_MEM_BUDGET_MB;
	const reserve = settings.memReserveMb ?? DEFAULT_MEM_RESERVE_MB;
	const byMemory = memAvailable === null ? bySlots : Math.floor((memAvailable - reserve) / budget) - state.launching;
	const profileMb = settings.profileDiskMb ?? DEFAULT_PROFILE_DISK_MB;
	const perBotMb = (settings.recordingMaxBytes ?? RECORDING_MAX_BYTES) / MB + profileMb;
	// Bots still launching have not written their profiles yet; running ones mostly have.
	const promisedMb = (state.recordingBytesLeft ?? 0) / MB + state.launching * profileMb;
	const byDisk = diskFree === null ? bySlots : Math.floor((diskFree - promisedMb) / perBotMb);
	const overloaded = load1 > (settings.maxLoad ?? readers.cores());
	const limits: [CapacityLimit, boolean][] = [
		["draining", state.draining],
		["not_ready", !state.ready],
		["load", overloaded],
		["slots", bySlots <= 0],
		["memory", byMemory <= 0],
		["disk", byDisk <= 0],
	];
	const limited_by = limits.filter(([, applies]) => applies).map(([limit]) => limit);
	return {
		slots: settings.slots,
		running: state.running,
		launching: state.launching,
		free: limited_by.length > 0 ? 0 : Math.min(bySlots, byMemory, byDisk),
		draining: state.draining,
		mem_available_mb: Math.max(0, memAvailable ?? 0),
		load1: Math.max(0, Math.round(load1 * 100) / 100),
		disk_free_mb: Math.max(0, diskFree ?? 0),
		disk_needed_mb: Math.ceil(promisedMb + perBotMb),
		limited_by,
	};
}
