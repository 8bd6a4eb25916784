/**
 * A virtual screen of its own for each bot. Every maintained peer runs its Chromium headed on
 * Xvfb (docs/bot-fleet.md#a-visible-browser), because a headless one is easy for a platform to
 * tell from a person's. Each bot gets one Xvfb:
 * - a free display number chosen by Xvfb itself (`-displayfd`), so bots and other X servers on
 *   the machine never collide;
 * - no TCP listener, and an X authority cookie only the bot's Chromium and input get: another
 *   user or bot on the machine cannot watch its screen or type into it;
 * - started through `setpriv --pdeathsig SIGKILL` like the browser, so it dies with the host, and
 *   named after the host's profile directory (`-auth <profile>/Xauthority`), so a host's next
 *   start finds and reaps one a dead instance left (../stray-browsers.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { parentDeathHelper } from "./browser-owner.ts";
import { findOnPath } from "./search-path.ts";

export interface VirtualDisplay {
	/** As DISPLAY names it: `:<number>`. */
	name: string;
	number: number;
	/** The X authority file holding `cookie` (MIT-MAGIC-COOKIE-1). */
	authority: string;
	cookie: Buffer;
	/** The Xvfb process. */
	pid: number;
	width: number;
	height: number;
	/** DISPLAY and XAUTHORITY for the programs that use it: the bot's Chromium and its input. */
	env: { DISPLAY: string; XAUTHORITY: string };
	/** Ends Xvfb (it removes its lock file and socket); resolves once it has exited. */
	close(): Promise<void>;
}

const START_TIMEOUT_MS = 10_000;
const AUTH_NAME = "MIT-MAGIC-COOKIE-1";

/** What /health names when no bot can have a screen, or null when Xvfb is on PATH. */
export function displayMissing(searchPath?: string): string | null {
	return findOnPath("Xvfb", searchPath)
		? null
		: "Xvfb not found on PATH (install the Debian package xvfb): each bot's Chromium runs headed on a virtual display of its own, so no bot can start";
}

/**
 * One X authority entry that matches any host and display number (family FamilyWild, empty
 * address and number): the display number is Xvfb's choice, known only once it runs.
 */
function authorityEntry(cookie: Buffer): Buffer {
	const field = (bytes: Buffer) => {
		const length = Buffer.alloc(2);
		length.writeUInt16BE(bytes.length);
		return [length, bytes];
	};
	const family = Buffer.from([0xff, 0xff]);
	return Buffer.concat([family, ...field(Buffer.alloc(0)), ...field(Buffer.alloc(0)), ...field(Buffer.from(AUTH_NAME)), ...field(cookie)]);
}

/** Starts an Xvfb with a `width`×`height` screen whose authority file lives in `dir` (the bot's profile directory). */
export async function startVirtualDisplay(options: { dir: string; width: number; height: number }): Promise<VirtualDisplay> {
	const xvfb = findOnPath("Xvfb");
	if (!xvfb) throw new Error(displayMissing() ?? "Xvfb not found");
	const cookie = randomBytes(16);
	const authority = path.join(options.dir, "Xauthority");
	await writeFile(authority, authorityEntry(cookie), { mode: 0o600 });
	// No GLX: Chromium renders without a GPU (--disable-gpu), and Mesa's software GL (LLVM) would cost each display ~30 MB.
	const args = [
		"-displayfd",
		"3",
		"-nolisten",
		"tcp",
		"-auth",
		authority,
		"-screen",
		"0",
		`${options.width}x${options.height}x24`,
		"-extension",
		"GLX",
	];
	const setpriv = parentDeathHelper();
	const child = spawn(setpriv ?? xvfb, setpriv ? ["--pdeathsig", "SIGKILL", "--", xvfb, ...args] : args, {
		stdio: ["ignore", "ignore", "pipe", "pipe"],
	});
	const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
	let number: number;
	try {
		number = await displayNumber(child);
	} catch (err) {
		child.kill("SIGKILL");
		await exited;
		throw err;
	}
	const name = `:${number}`;
	return {
		name,
		number,
		authority,
		cookie,
		pid: child.pid ?? 0,
		width: options.width,
		height: options.height,
		env: { DISPLAY: name, XAUTHORITY: authority },
		async close() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.kill("SIGTERM");
			const killer = setTimeout(() => child.kill("SIGKILL"), 2_000);
			await exited;
			clearTimeout(killer);
		},
	};
}

/** The display number Xvfb writes to fd 3 once it accepts connections; its last words when it exits first. */
function displayNumber(child: ChildProcess): Promise<number> {
	const said: string[] = [];
	child.stderr?.on("data", (chunk: Buffer) => {
		said.push(chunk.toString());
		if (said.length > 20) said.shift();
	});
	return new Promise((resolve, reject) => {
		let written = "";
		const fail = (why: string) => {
			clearTimeout(timer);
			const words = said.join("").trim().split("\n").slice(-3).join(" / ");
			reject(new Error(`the bot's virtual display did not start: ${why}${words ? ` (Xvfb: ${words})` : ""}`));
		};
		const timer = setTimeout(() => fail(`no display after ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
		child.once("error", (err) => fail(err.message));
		const onExit = (code: number | null, signal: NodeJS.Signals | null) => fail(`Xvfb exited (${signal ?? `code ${code}`})`);
		child.once("exit", onExit);
		(child.stdio[3] as Readable).on("data", (chunk: Buffer) => {
			written += chunk.toString();
			if (!written.includes("\n")) return;
			clearTimeout(timer);
			child.off("exit", onExit);
			const number = Number(written.trim());
			if (Number.isInteger(number) && number >= 0) resolve(number);
			else reject(new Error(`the bot's virtual display did not start: Xvfb named no display number ("${written.trim()}")`));
		});
	});
}
