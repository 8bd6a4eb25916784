/** How many bots a host takes: slots, memory (MemAvailable from /proc/meminfo) and load. */
import { describe, expect, it } from "vitest";
import { capacityOf, memAvailableFrom } from "../fleet/capacity.ts";

const machine = (memAvailableMb: number | null, load1 = 0, cores = 4) => ({
	memAvailableMb: () => memAvailableMb,
	load1: () => load1,
	cores: () => cores,
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
		// Short of memory is no free slot, never a negative one.
		expect(capacityOf({ slots: 20, readers: machine(300) }, idle).free).toBe(0);
	});

	it("are none while draining, not ready, or loaded past the core count (or BOT_HOST_MAX_LOAD)", () => {
		expect(capacityOf({ slots: 5, readers: machine(64_000) }, { ...idle, draining: true })).toMatchObject({ free: 0, draining: true });
		expect(capacityOf({ slots: 5, readers: machine(64_000) }, { ...idle, ready: false }).free).toBe(0);
		expect(capacityOf({ slots: 5, readers: machine(64_000, 4.5, 4) }, idle)).toMatchObject({ free: 0, load1: 4.5 });
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
});
