/**
 * A fake /proc in a temporary directory, with real files in the kernel's formats: pressure
 * (PSI), meminfo, and `<pid>/stat` for processes. The host reads it through BOT_HOST_PROC_DIR
 * (`procDir`), exactly as it reads the real one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

export interface FakeProcess {
	ppid: number;
	/** CPU times in clock ticks (1/100 s). */
	utime: number;
	stime?: number;
	cutime?: number;
	cstime?: number;
	/** The command name; the kernel puts it in parentheses, and it may hold spaces and parentheses itself. */
	comm?: string;
}

export class FakeProc {
	readonly dir: string;

	constructor() {
		this.dir = mkdtempSync(path.join(tmpdir(), "fake-proc-"));
		mkdirSync(path.join(this.dir, "pressure"));
	}

	/** `some avg10` of a pressure file, in percent; null removes the file, as on a kernel without PSI. */
	pressure(resource: "cpu" | "memory", someAvg10: number | null): this {
		const file = path.join(this.dir, "pressure", resource);
		if (someAvg10 === null) rmSync(file, { force: true });
		else
			writeFileSync(
				file,
				`some avg10=${someAvg10.toFixed(2)} avg60=${(someAvg10 / 2).toFixed(2)} avg300=1.00 total=123456789\n` +
					"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
			);
		return this;
	}

	meminfo(availableMb: number): this {
		const kb = availableMb * 1024;
		writeFileSync(
			path.join(this.dir, "meminfo"),
			`MemTotal:       ${kb * 2} kB\nMemFree:        ${kb} kB\nMemAvailable:   ${kb} kB\nBuffers:          1024 kB\n`,
		);
		return this;
	}

	process(pid: number, proc: FakeProcess): this {
		mkdirSync(path.join(this.dir, String(pid)), { recursive: true });
		const times = [proc.utime, proc.stime ?? 0, proc.cutime ?? 0, proc.cstime ?? 0].join(" ");
		writeFileSync(
			path.join(this.dir, String(pid), "stat"),
			`${pid} (${proc.comm ?? "chromium"}) S ${proc.ppid} ${pid} ${pid} 0 -1 4194560 2000 0 0 0 ${times} 20 0 12 0 5000 900000000 40000 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n`,
		);
		return this;
	}

	/** The process ended: its directory goes. */
	end(pid: number): this {
		rmSync(path.join(this.dir, String(pid)), { recursive: true, force: true });
		return this;
	}

	remove(): void {
		rmSync(this.dir, { recursive: true, force: true });
	}
}
