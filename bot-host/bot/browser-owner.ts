/**
 * Whose a bot's Chromium is, and that it dies with its host however the host ends (SIGKILL, the
 * OOM killer, a crash). Puppeteer starts Chromium detached, in a session of its own, so nothing
 * sent to the host's process group reaches it, and a dead host's browser would run on under init.
 * So each browser starts through `setpriv --pdeathsig SIGKILL` (util-linux): the kernel kills it
 * the moment its parent, the host process, is gone, and its zygote, renderers and utility
 * processes end with it (they exit when the browser's IPC closes; bot-host/test/orphans.test.ts).
 * (`pipe: true` ends it too, checked unsandboxed: Chromium quits when its DevTools pipe closes, but
 * only once its main thread gets to it; the signal waits for nothing.) The signal follows the thread
 * that spawned the browser: the host's main thread, which lives as long as the process.
 * Its profile lives in a directory naming the host id and the host process (pid and start time,
 * so a reused pid is not taken for it): a host that starts finds what a dead instance of itself
 * left behind (../stray-browsers.ts).
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type LaunchOptions } from "puppeteer-core";
import { findOnPath } from "./search-path.ts";

/** Named in a host's profile directory when the host has no id (tests, the bench). */
export const UNNAMED_HOST = "unnamed";

const OWNER_PREFIX = "meetbot-host-";
const OWNER_NAME = /^meetbot-host-(.+)-(\d+)-(\d+)$/;

/** A host process that launches browsers: its id, pid and start time (clock ticks since boot, /proc/<pid>/stat). */
export interface BrowserOwner {
	hostId: string;
	pid: number;
	started: number;
	/** Where its bots' profiles go: `<tmpdir>/meetbot-host-<host id>-<pid>-<start time>`. */
	dir: string;
}

/** The directory-safe form of a host id (main.ts allows letters, digits and `. _ : -`; in-process hosts may pass anything). */
const safeId = (hostId: string) => hostId.replace(/[^\w.:-]/g, "_").slice(0, 200) || UNNAMED_HOST;

export function ownerDirName(owner: Pick<BrowserOwner, "hostId" | "pid" | "started">): string {
	return `${OWNER_PREFIX}${safeId(owner.hostId)}-${owner.pid}-${owner.started}`;
}

/** The owner a profile directory's name names, or null when it is not one. */
export function parseOwnerDir(name: string, tmp = tmpdir()): BrowserOwner | null {
	const match = OWNER_NAME.exec(name);
	if (!match) return null;
	const [, hostId, pid, started] = match as unknown as [string, string, string, string];
	return { hostId, pid: Number(pid), started: Number(started), dir: path.join(tmp, name) };
}

/** When a process started (clock ticks since boot), or null when there is no such process (a zombie counts as gone). */
export function processStarted(pid: number): number | null {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
		// Fields after the parenthesised command name: state is the 3rd field, starttime the 22nd.
		const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
		if (fields[0] === "Z" || fields[0] === "X") return null;
		return Number(fields[19]);
	} catch {
		return null;
	}
}

/** This process as the owner of the browsers it launches for `hostId`. */
export function browserOwner(hostId: string = UNNAMED_HOST): BrowserOwner {
	const started = processStarted(process.pid) ?? 0;
	const owner = { hostId: safeId(hostId), pid: process.pid, started };
	return { ...owner, dir: path.join(tmpdir(), ownerDirName(owner)) };
}

/** Whether the host process that owns these browsers still runs: the same pid, started at the same tick. */
export function ownerAlive(owner: Pick<BrowserOwner, "pid" | "started">): boolean {
	return processStarted(owner.pid) === owner.started;
}

let setprivPath: string | null | undefined;

/** `setpriv` on PATH, or null (found once: a host does not gain util-linux while it runs). */
export function parentDeathHelper(searchPath = process.env.PATH ?? ""): string | null {
	if (setprivPath === undefined) setprivPath = findOnPath("setpriv", searchPath);
	return setprivPath;
}

/** What /health names when bots' browsers would outlive a killed host, or null when they cannot. */
export function parentDeathMissing(): string | null {
	return parentDeathHelper()
		? null
		: "setpriv not found on PATH (install the Debian package util-linux): a killed bot host leaves its browsers running until it starts again";
}

/** Puppeteer's default switch that sets navigator.webdriver and the "controlled by automated software" bar. */
export const AUTOMATION_SWITCH = "--enable-automation";

/**
 * Puppeteer's launch options rewritten so Chromium starts as a child that dies with this process.
 * setpriv takes its options before the program and puppeteer puts its own flags first, so the
 * command is built whole: setpriv's options, Chromium, then the flags puppeteer would have given
 * it for these options (its defaults, then `args`). Without setpriv the options stay as they are
 * (the host says so at start; its next start reaps what it leaves). Either way puppeteer's
 * `--enable-automation` is left out, unless `automation` asks for the former launch (browser.ts).
 */
export function withParentDeath(options: LaunchOptions, { automation = false } = {}): LaunchOptions {
	const setpriv = parentDeathHelper();
	if (!options.executablePath || options.ignoreDefaultArgs) return options;
	if (!setpriv) return automation ? options : { ...options, ignoreDefaultArgs: [AUTOMATION_SWITCH] };
	const defaults = puppeteer.defaultArgs(options).filter((flag) => automation || flag !== AUTOMATION_SWITCH);
	return {
		...options,
		executablePath: setpriv,
		args: ["--pdeathsig", "SIGKILL", "--", options.executablePath, ...defaults],
		ignoreDefaultArgs: true,
	};
}
