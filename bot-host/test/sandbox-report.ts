/**
 * Run by chromium-sandbox.test.ts as its own process (as an unprivileged user when the test
 * runs as root): decides the sandbox as the host would, launches a bot's Chromium with the
 * resulting flags, opens a page, and prints which of Chromium's processes run under a
 * seccomp-bpf filter (`Seccomp: 2` in /proc/<pid>/status), the sandbox's mark on Linux, how many
 * filters each has (a container's profile is one more), and in how many user namespaces they run
 * (the namespace sandbox puts its processes in one of their own). seccomp-profile.test.ts runs it
 * under the bot host container's seccomp profile.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { launchBotBrowser } from "../bot/browser.ts";
import { decideSandbox, parseSandboxSetting, probeSandboxHost } from "../bot/chromium-sandbox.ts";

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const decision = decideSandbox(parseSandboxSetting(process.env.BOT_CHROMIUM_SANDBOX), probeSandboxHost(executablePath));
const bot = await launchBotBrowser("sandbox-report", { executablePath, extraFlags: [], fakeDevices: true, sandbox: decision.sandbox });
try {
	const page = await bot.browser.newPage();
	await page.goto("data:text/html,<p>a page from the meeting</p>");
	const root = bot.browser.process()?.pid ?? -1;
	const tree = descendants(root);
	const userNamespaces = new Set(tree.map((pid) => userNamespace(pid)).filter((ns) => ns !== null)).size;
	console.log(
		JSON.stringify({
			uid: process.getuid?.(),
			decision,
			seccomp: tree.map(seccompMode),
			filters: tree.map(seccompFilters),
			userNamespaces,
		}),
	);
} finally {
	await bot.close();
}

function field(pid: number, file: string): string | null {
	try {
		return readFileSync(`/proc/${pid}/${file}`, "utf8");
	} catch {
		return null;
	}
}

function descendants(root: number): number[] {
	const parent = new Map<number, number>();
	for (const name of readdirSync("/proc")) {
		const pid = Number(name);
		const stat = Number.isInteger(pid) ? field(pid, "stat") : null;
		// ppid is the second field after the parenthesised command name.
		if (stat) parent.set(pid, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
	}
	const tree = new Set([root]);
	for (let grew = true; grew; ) {
		grew = false;
		for (const [pid, ppid] of parent) {
			if (tree.has(ppid) && !tree.has(pid)) {
				tree.add(pid);
				grew = true;
			}
		}
	}
	return [...tree];
}

function seccompMode(pid: number): number {
	return Number(/^Seccomp:\s*(\d)/m.exec(field(pid, "status") ?? "")?.[1] ?? -1);
}

/** How many seccomp filters the process runs under (0 without any). */
function seccompFilters(pid: number): number {
	return Number(/^Seccomp_filters:\s*(\d+)/m.exec(field(pid, "status") ?? "")?.[1] ?? -1);
}

function userNamespace(pid: number): string | null {
	try {
		return readlinkSync(`/proc/${pid}/ns/user`);
	} catch {
		return null;
	}
}
