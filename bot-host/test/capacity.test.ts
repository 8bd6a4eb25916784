/**
 * How many bots a host takes: slots, memory (MemAvailable from /proc/meminfo), disk, and, where
 * the kernel has no PSI, load. Pressure and the bots' own CPU: capacity-cpu.test.ts.
 */

import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { capacityOf, diskFreeMbOf, memAvailableFrom } from "../fleet/capacity.ts";

/** A machine without PSI (an older kernel, macOS): the load average stands in for pressure. */
const machine = (memAvailableMb: number | null, load1 = 0, cores = 4, diskFreeMb: number | null = 64_000) => ({
	memAvailableMb: () => memAvailableMb,
	load1: () => load1,
	cores: () => cores,
	diskFreeMb: () => diskFreeMb,
	cpuPressure: () => null,
	memPressure: () => null,
});
const idle = { running: 0, launching: 0, draining: false, ready: true };

describe("a host's free slots", () => {
	it("are the slots left when memory is plenty", () => {
		expect(capacityOf({ slots: 20, readers: machine(64_000) }, { ...idle, running: 3, launching: 2 })).toMatchObject({ free: 15 });
	});

	it("are what memory allows past the reserve, with launching bots' budget taken off", () => {
		// (4512 − 512) / 400 = 10 bots of memory; 2 are launching and not yet using theirs.
		const capacity = capacityOf({ slots: 20, readers: machine(4_512) }, { ...idle, running: 5, launching: 2 });
		expect(capacity).toMatchObject({ free: 8, mem_available_mb: 4_512 });
		expect(capacityOf({ slots: 20, botMemBudgetMb: 1_000, memReserveMb: 0, readers: machine(4_512) }, idle).free).toBe(4);
		// Launching bots' budgets count in what is needed: 512 + 3 × 400.
		expect(capacityOf({ slots: 20, readers: machine(1_700) }, { ...idle, launching: 2 }).refusing).toBe(
			"too little memory: 1700 MB available, 1712 MB needed",
		);
		// Short of memory is no free slot, never a negative one, and says how short.
		expect(capacityOf({ slots: 20, readers: machine(300) }, idle)).toMatchObject({
			free: 0,
			limited_by: ["memory"],
			// 512 MB reserve and 400 MB for one bot.
			refusing: "too little memory: 300 MB available, 912 MB needed",
		});
	});

	it("are none while draining, not ready, or (without PSI) loaded past the core count (or BOT_HOST_MAX_LOAD)", () => {
		expect(capacityOf({ slots: 5, readers: machine(64_000) }, { ...idle, draining: true })).toMatchObject({
			free: 0,
			draining: true,
			limited_by: ["draining"],
			refusing: "draining: the host is stopping",
		});
		expect(capacityOf({ slots: 5, readers: machine(64_000) }, { ...idle, ready: false })).toMatchObject({
			free: 0,
			limited_by: ["not_ready"],
			refusing: "not ready (the host's /health says why)",
		});
		expect(capacityOf({ slots: 5, readers: machine(64_000, 4.5, 4) }, idle)).toMatchObject({
			free: 0,
			load1: 4.5,
			limited_by: ["load"],
			refusing: "load average 4.5 (limit 4; no PSI on this kernel)",
			cpu_pressure: null,
		});
		expect(capacityOf({ slots: 5, readers: machine(64_000, 4, 4) }, idle).free).toBe(5);
		expect(capacityOf({ slots: 5, maxLoad: 8, readers: machine(64_000, 4.5, 4) }, idle).free).toBe(5);
	});

	it("reads MemAvailable from /proc/meminfo, and lets slots alone decide when it is unknown", () => {
		const meminfo = "MemTotal:       24684544 kB\nMemFree:        21986304 kB\nMemAvailable:   22646784 kB\nBuffers:           1 kB\n";
		expect(memAvailableFrom(meminfo)).toBe(22_116);
		expect(memAvailableFrom("MemTotal: 1 kB\n")).toBeNull();
		expect(memAvailableFrom(null)).toBeNull();
		expect(capacityOf({ slots: 3, readers: machine(null) }, idle)).toMatchObject({ free: 3, mem_available_mb: 0 });
	});

	it("leave room on disk for one more bot's whole recording and profile, past what running bots may still record", () => {
		const MB = 1024 * 1024;
		// 100 MB recordings and 50 MB profiles: one more bot needs 150 MB.
		// No reserve here: the next test keeps one.
		const disk = (freeMb: number | null) => ({
			slots: 20,
			recordingMaxBytes: 100 * MB,
			profileDiskMb: 50,
			diskReserveMb: 0,
			readers: machine(64_000, 0, 4, freeMb),
		});
		expect(capacityOf(disk(1_000), idle)).toMatchObject({ free: 6, disk_free_mb: 1_000, disk_needed_mb: 150, limited_by: [] });
		// Two running bots may still record 100 MB each, and one launching bot still writes its 50 MB profile: 250 MB promised.
		const busy = { ...idle, running: 2, launching: 1, recordingBytesLeft: 200 * MB };
		expect(capacityOf(disk(1_000), busy)).toMatchObject({ free: 5, disk_needed_mb: 400 });
		// Short of room for one more whole recording is no free slot, named as the reason.
		expect(capacityOf(disk(399), busy)).toMatchObject({
			free: 0,
			disk_free_mb: 399,
			disk_needed_mb: 400,
			limited_by: ["disk"],
			refusing: "too little disk: 399 MB free, 400 MB needed",
		});
		expect(capacityOf(disk(149), idle)).toMatchObject({ free: 0, limited_by: ["disk"] });
		expect(capacityOf(disk(150), idle).free).toBe(1);
		// Every limit that applies is named; an unknown free space leaves the others to decide.
		expect(capacityOf({ ...disk(10), slots: 1 }, { ...idle, running: 1 })).toMatchObject({
			limited_by: ["slots", "disk"],
			refusing: "1 of 1 slots taken; too little disk: 10 MB free, 150 MB needed",
		});
		expect(capacityOf(disk(null), idle)).toMatchObject({ free: 20, disk_free_mb: 0, limited_by: [] });
		// By default a recording is capped at the Worker's 1 GiB upload limit, a profile counts 256 MB, and 256 MB are kept free.
		expect(capacityOf({ slots: 20, readers: machine(64_000, 0, 4, 2_815) }, idle)).toMatchObject({ free: 1, disk_needed_mb: 1_536 });
		expect(capacityOf({ slots: 20, readers: machine(64_000, 0, 4, 1_535) }, idle)).toMatchObject({ free: 0, limited_by: ["disk"] });
	});

	it("stop taking work before the disk is full: the reserve stays free, and every bot's profile counts up to its limit", () => {
		const MB = 1024 * 1024;
		// 100 MB recordings, 50 MB profiles, 200 MB kept free (BOT_HOST_DISK_RESERVE_MB).
		const disk = (freeMb: number) => ({
			slots: 20,
			recordingMaxBytes: 100 * MB,
			profileDiskMb: 50,
			diskReserveMb: 200,
			readers: machine(64_000, 0, 4, freeMb),
		});
		expect(capacityOf(disk(350), idle)).toMatchObject({ free: 1, disk_needed_mb: 350, limited_by: [] });
		expect(capacityOf(disk(349), idle)).toMatchObject({
			free: 0,
			limited_by: ["disk"],
			refusing: "too little disk: 349 MB free, 350 MB needed (200 MB of it kept free)",
		});
		// Two running bots whose pages have filled 10 MB and 45 MB of their profiles may still write 40 + 5 MB there,
		// besides 60 MB of recordings; a launching bot counts its whole 50 MB.
		const busy = { ...idle, running: 2, launching: 1, recordingBytesLeft: 60 * MB, profileBytesLeft: (40 + 5 + 50) * MB };
		expect(capacityOf(disk(505), busy)).toMatchObject({ free: 1, disk_needed_mb: 505 });
		expect(capacityOf(disk(504), busy)).toMatchObject({ free: 0, limited_by: ["disk"] });
	});

	it("read the free space of the temporary directory the bots write to", () => {
		const free = diskFreeMbOf(tmpdir());
		expect(free).toBeGreaterThan(0);
		expect(diskFreeMbOf("/no/such/directory")).toBeNull();
	});
});
