/**
 * Linux pressure stall information (PSI, kernel 4.20+): `<proc>/pressure/cpu` and
 * `<proc>/pressure/memory` say what share of the last 10 s (`some avg10`, percent) at least one
 * task waited for a CPU, or stalled on memory. Unlike the load average, which counts every
 * runnable process whether or not anything waits, it rises only when work is really held up.
 * Absent on older kernels, on macOS, and where the kernel runs with `psi=0` (the file exists but
 * cannot be read): then null, and the host falls back to the load average (fleet/capacity.ts).
 */
import { readFileSync } from "node:fs";

export type PressureResource = "cpu" | "memory";

/** `some avg10` of `<procDir>/pressure/<resource>`, in percent; null where there is no PSI. */
export function readPressure(procDir: string, resource: PressureResource): number | null {
	try {
		return pressureFrom(readFileSync(`${procDir}/pressure/${resource}`, "utf8"));
	} catch {
		return null;
	}
}

/** The `some avg10` figure of a pressure file's text, in percent. */
export function pressureFrom(text: string): number | null {
	const avg10 = /^some\s.*\bavg10=(\d+(?:\.\d+)?)/m.exec(text)?.[1];
	return avg10 === undefined ? null : Math.min(100, Number(avg10));
}
