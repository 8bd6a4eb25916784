/**
 * Whether a bot's Chromium keeps its sandbox. Bots render pages and links that users choose,
 * so the sandbox stays on wherever the kernel allows it: as a non-root user with working
 * unprivileged user namespaces, or with a setuid `chrome-sandbox` helper. As root Chromium
 * refuses to start sandboxed. `BOT_CHROMIUM_SANDBOX`:
 * - `on` (production, deploy/bot-host.yaml): the sandbox or no work. Where it cannot be had the
 *   host is not ready (/health 503 naming why) and takes nothing: it never falls back.
 * - `auto` (the default): sandboxed where possible, else `--no-sandbox`, said loudly: a warning
 *   at start and /health `degraded` naming it (this machine and CI run as root).
 * - `off`: never sandboxed, the operator's explicit choice (logged).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";

export type SandboxSetting = "on" | "off" | "auto";

/** What the host allows; probed once at start-up. */
export interface SandboxHost {
	root: boolean;
	/** An unprivileged process can create a user namespace (Chromium's namespace sandbox). */
	userNamespaces: boolean;
	/** A root-owned setuid `chrome-sandbox` next to the Chromium binary. */
	setuidHelper: boolean;
}

export interface SandboxDecision {
	sandbox: boolean;
	why: string;
	/**
	 * What /health names: `fatal` when `on` cannot be had (the host takes no work), a warning
	 * when `auto` fell back to no sandbox.
	 */
	problem?: { fatal: boolean; detail: string };
}

export function parseSandboxSetting(value: string | undefined): SandboxSetting {
	const setting = (value ?? "").trim().toLowerCase() || "auto";
	if (setting === "on" || setting === "off" || setting === "auto") return setting;
	throw new Error(`BOT_CHROMIUM_SANDBOX must be on, off or auto (got "${value}")`);
}

/** Why this host cannot sandbox Chromium, or null when it can. */
function unavailableBecause(host: SandboxHost): string | null {
	if (host.root) return "running as root, where Chromium refuses to start sandboxed";
	if (host.userNamespaces || host.setuidHelper) return null;
	return "neither unprivileged user namespaces nor a setuid chrome-sandbox helper is available";
}

const available = (host: SandboxHost) =>
	host.userNamespaces ? "unprivileged user namespaces are available" : "a setuid chrome-sandbox helper is installed";

export function decideSandbox(setting: SandboxSetting, host: SandboxHost): SandboxDecision {
	if (setting === "off") return { sandbox: false, why: "BOT_CHROMIUM_SANDBOX=off" };
	const missing = unavailableBecause(host);
	if (setting === "on") {
		if (!missing) return { sandbox: true, why: `BOT_CHROMIUM_SANDBOX=on and ${available(host)}` };
		// Still `sandbox: true`: should anything launch, Chromium refuses to start rather than run unsandboxed.
		const detail = `BOT_CHROMIUM_SANDBOX=on, but the Chromium sandbox is not available here: ${missing}; this host takes no work`;
		return { sandbox: true, why: detail, problem: { fatal: true, detail } };
	}
	if (!missing) return { sandbox: true, why: available(host) };
	const detail = `Chromium runs WITHOUT its sandbox (BOT_CHROMIUM_SANDBOX=auto fell back): ${missing}; set BOT_CHROMIUM_SANDBOX=on in production`;
	return { sandbox: false, why: detail, problem: { fatal: false, detail } };
}

/**
 * Launch flags that follow from the decision. Unsandboxed, `--no-zygote` saves the zygote each
 * bot would fork its renderer from. Not `--single-process`: it saved ~70 MB a bot headless, but
 * headed on Xvfb, Chromium so run crashed as it started or as a page ended (4 of 9 runs of the
 * Teams outcome-screen test, four bots each, against 0 of 8 without it). Sandboxed, `--no-zygote`
 * goes too: Chromium refuses it with the sandbox on.
 */
export function sandboxFlags(sandbox: boolean): string[] {
	return sandbox ? [] : ["--no-sandbox", "--no-zygote"];
}

export function probeSandboxHost(chromiumPath: string): SandboxHost {
	const root = process.getuid?.() === 0;
	return { root, userNamespaces: !root && userNamespacesWork(), setuidHelper: setuidHelperFor(chromiumPath) };
}

function userNamespacesWork(): boolean {
	// Ubuntu's AppArmor lets the namespace be made but strips what the sandbox needs inside it.
	if (readSysctl("kernel/apparmor_restrict_unprivileged_userns") === "1") return false;
	if (readSysctl("kernel/unprivileged_userns_clone") === "0" || readSysctl("user/max_user_namespaces") === "0") return false;
	const probe = spawnSync("unshare", ["--user", "true"], { stdio: "ignore", timeout: 5_000 });
	return probe.status === 0;
}

function setuidHelperFor(chromiumPath: string): boolean {
	// /usr/bin/chromium is often a wrapper script; the helper sits by the real binary.
	const dirs = [path.dirname(chromiumPath), "/usr/lib/chromium"];
	return dirs.some((dir) => {
		try {
			const helper = statSync(path.join(dir, "chrome-sandbox"));
			return helper.uid === 0 && (helper.mode & 0o4000) !== 0;
		} catch {
			return false;
		}
	});
}

function readSysctl(name: string): string | null {
	try {
		return readFileSync(`/proc/sys/${name}`, "utf8").trim();
	} catch {
		return null;
	}
}

/** The host's decision from its environment, logged once with the reason (as a warning when it is a problem). */
export function chromiumSandbox(chromiumPath: string, value: string | undefined, log: (line: string) => void): SandboxDecision {
	const decision = decideSandbox(parseSandboxSetting(value), probeSandboxHost(chromiumPath));
	if (decision.problem) log(`WARNING: ${decision.problem.detail}`);
	else log(`chromium sandbox ${decision.sandbox ? "on" : "off"}: ${decision.why}`);
	return decision;
}
