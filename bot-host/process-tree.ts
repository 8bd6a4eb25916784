/**
 * A process and everything it started, read from /proc: the bench sums a bot's Chromium tree,
 * and the fleet tests kill a host together with its browsers, as a lost machine would.
 */
import { readdirSync, readFileSync } from "node:fs";

/** `pid` and all its descendants, `pid` first. */
export function processTree(pid: number): number[] {
	const children = new Map<number, number[]>();
	for (const entry of readdirSync("/proc")) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// The parent pid is the 2nd field after the parenthesised command name.
			const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
			const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
			children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
		} catch {
			// The process ended while we looked.
		}
	}
	const found: number[] = [];
	const queue = [pid];
	for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
		found.push(next);
		queue.push(...(children.get(next) ?? []));
	}
	return found;
}
