/**
 * What /proc says about a bot host's browsers, for the tests that kill or stop hosts: the
 * processes whose profile lies under a host's directory (bot/browser-owner.ts), the displays they
 * run on, and a session's
 * members (puppeteer starts each Chromium in a session of its own, and its helpers stay in it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ownerDirName, processStarted } from "../bot/browser-owner.ts";

const pids = () => readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));

/** Every live process whose command line names a profile under `dir` (Chromium passes it to all its helpers). */
export function browsersIn(dir: string): number[] {
	return processesNaming(`--user-data-dir=${dir}${path.sep}`);
}

/** Every live Xvfb whose authority file lies in a profile under `dir` (bot/display.ts): the bots' displays. */
export function displaysIn(dir: string): number[] {
	return processesNaming(` -auth ${dir}${path.sep}`);
}

function processesNaming(marker: string): number[] {
	return pids()
		.filter((entry) => {
			try {
				return readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").includes(marker);
			} catch {
				return false;
			}
		})
		.map(Number);
}

/** Live processes of the session `sid` leads. */
export function sessionOf(sid: number): number[] {
	return pids()
		.filter((entry) => {
			try {
				const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
				const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
				return fields[0] !== "Z" && Number(fields[3]) === sid;
			} catch {
				return false;
			}
		})
		.map(Number);
}

/** Running (a zombie waiting for its parent to read its end counts as gone). */
export const alive = (pid: number) => processStarted(pid) !== null;

/** SIGKILL to each, ignoring those already gone. */
export function killAll(list: number[]): void {
	for (const pid of list) {
		try {
			process.kill(pid, "SIGKILL");
		} catch {
			// ended while we looked
		}
	}
}

/** The profile directory of the bot host process `pid` started as `hostId`. */
export function hostDir(hostId: string, pid: number): string {
	return path.join(tmpdir(), ownerDirName({ hostId, pid, started: processStarted(pid) ?? 0 }));
}

/** A pid and start time that name no live process: an instance of a host that has died. */
export async function deadProcess(): Promise<{ pid: number; started: number }> {
	const child: ChildProcess = spawn("sleep", ["60"], { stdio: "ignore" });
	const pid = child.pid ?? 0;
	const started = processStarted(pid) ?? 0;
	const exited = once(child, "exit");
	child.kill("SIGKILL");
	await exited;
	return { pid, started };
}

/** This machine's PATH as one directory of links without `command`: a machine that lacks it. */
export function pathWithout(command: string): string {
	const dir = mkdtempSync(path.join(tmpdir(), `path-without-${command}-`));
	for (const from of (process.env.PATH ?? "").split(path.delimiter).filter(Boolean)) {
		let names: string[];
		try {
			names = readdirSync(from);
		} catch {
			continue;
		}
		for (const name of names) {
			if (name === command || existsSync(path.join(dir, name))) continue;
			symlinkSync(path.join(from, name), path.join(dir, name));
		}
	}
	return dir;
}
