/**
 * At start, a bot host reaps what a dead instance of itself left: Chromium processes, the Xvfb
 * displays they ran on, and profile directories under a `meetbot-host-<its id>-<pid>-<start time>`
 * directory whose process is gone (or is another process now: the start time differs). A browser
 * and its display launched through setpriv die with their host (bot/browser-owner.ts,
 * bot/display.ts); this catches the rest: a host without setpriv, a host killed between spawning
 * one and setpriv arming the signal, a profile nobody removed. Another host's browsers, and a live
 * instance's of the same id, are never touched.
 */
import { readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { type BrowserOwner, ownerAlive, parseOwnerDir } from "./bot/browser-owner.ts";

/** A directory's entries; none where it cannot be read (no /proc: not Linux). */
function listing(dir: string): string[] {
	try {
		return readdirSync(dir);
	} catch {
		return [];
	}
}

export interface Reaped {
	/**
	 * Processes killed: browsers and their helpers (zygote, renderers, utility), each carrying the
	 * profile flag, and displays (Xvfb), each naming its authority file in the profile.
	 */
	processes: number;
	/** Profile directories removed, one per dead host instance. */
	profiles: number;
}

/** The process ids whose command line names a profile under a dead instance of `hostId`, with that instance's directory. */
function strayProcesses(hostId: string, tmp: string, dead: (owner: BrowserOwner) => boolean): Map<number, string> {
	// Chromium's profile flag, and Xvfb's authority file inside that profile (bot/display.ts).
	const markers = [`--user-data-dir=${tmp}${path.sep}`, ` -auth ${tmp}${path.sep}`];
	const found = new Map<number, string>();
	for (const entry of listing("/proc")) {
		if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
		let cmdline: string;
		try {
			// Chromium's helpers rewrite their argv into one space-separated string; the browser's is NUL-separated.
			cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
		} catch {
			continue;
		}
		const marker = markers.find((m) => cmdline.includes(m));
		if (!marker) continue;
		const name = cmdline.slice(cmdline.indexOf(marker) + marker.length).split(/[/ ]/)[0] ?? "";
		const owner = parseOwnerDir(name, tmp);
		if (owner && owner.hostId === hostId && dead(owner)) found.set(Number(entry), owner.dir);
	}
	return found;
}

/**
 * Kills the stray browsers of dead instances of `self`'s host id and removes their profile
 * directories; one log line says how many when there were any.
 */
export async function reapStrayBrowsers(self: BrowserOwner, log: (line: string) => void): Promise<Reaped> {
	const { hostId } = self;
	const tmp = path.dirname(self.dir);
	const verdicts = new Map<string, boolean>();
	const dead = (owner: BrowserOwner) => {
		let isDead = verdicts.get(owner.dir);
		if (isDead === undefined) {
			isDead = !ownerAlive(owner);
			verdicts.set(owner.dir, isDead);
		}
		return isDead;
	};
	let processes = 0;
	for (const pid of strayProcesses(hostId, tmp, dead).keys()) {
		try {
			process.kill(pid, "SIGKILL");
			processes++;
		} catch {
			// It ended while we looked.
		}
	}
	const dirs = new Set<string>();
	for (const name of listing(tmp)) {
		const owner = parseOwnerDir(name, tmp);
		if (owner && owner.hostId === hostId && dead(owner)) dirs.add(owner.dir);
	}
	// A killed Chromium may still be closing files in its profile: rm retries.
	await Promise.all([...dirs].map((dir) => rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 })));
	if (processes > 0 || dirs.size > 0)
		log(
			`bot host: reaped ${processes} stray Chromium and Xvfb process(es) and ${dirs.size} profile director${dirs.size === 1 ? "y" : "ies"} left by a dead instance of ${hostId}`,
		);
	return { processes, profiles: dirs.size };
}
