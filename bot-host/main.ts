/**
 * Bot host entry: `node bot-host/main.ts`. It takes work by pulling spawn tickets through the
 * gateway and claiming them there (docs/bot-fleet.md#the-bot-host); it needs no inbound
 * connectivity. Its HTTP server answers GET /health and GET /metrics only.
 *
 * Work: BOT_HOST_GATEWAY_URL (where it pulls, claims and reports), BOT_HOST_ID (default the
 * hostname), and the host's own credential, minted for that id (POST /admin/bot-hosts):
 * BOT_HOST_CREDENTIAL, or BOT_HOST_CREDENTIAL_FILE (a mounted Secret's file, read at every use,
 * so a rotation needs no restart). BOT_HOST_VERSION (default package.json's). For tests and
 * benches only, SPAWN_QUEUE_URL (a bare queue's REST base) and SPAWN_QUEUE_TOKEN make it pull
 * from that queue directly.
 * Without the gateway URL or a credential the host runs NOT READY (/health 503 naming what is
 * missing).
 * Capacity: BOT_HOST_SLOTS (default 20; BOT_HOST_MAX_BOTS is its old name), BOT_MEM_BUDGET_MB
 * (400 per bot), BOT_MEM_RESERVE_MB (512 kept for the rest of the machine). CPU: BOT_HOST_CPU_TARGET
 * (85: percent of all cores the bots may use together), BOT_CPU_BUDGET_PCT (15: percent of a core
 * a bot counts until one is measured), BOT_HOST_MAX_CPU_PRESSURE (50), BOT_HOST_MAX_MEM_PRESSURE
 * (20), BOT_HOST_IDLE_MAX_PRESSURE (90: the limit while no bot runs), PSI some avg10 in percent;
 * BOT_HOST_PROC_DIR (/proc: where PSI, meminfo and the bots' CPU are read); BOT_HOST_MAX_LOAD
 * (default the core count: where the kernel has no PSI, above this 1-minute load average nothing
 * is pulled).
 * Disk: BOT_RECORDING_MAX_BYTES (default 1 GiB, the Worker's upload limit: a bot's recording
 * stops there, named on its channel), BOT_PROFILE_DISK_MB (256 per bot's Chromium profile: a bot
 * whose profile passes it is stopped, bot/profile-watch.ts), BOT_HOST_DISK_RESERVE_MB (256 kept
 * free); nothing is pulled while the temporary directory lacks room for one more bot beside what
 * the running ones may still write and the reserve (fleet/capacity.ts).
 * Timing: BOT_HOST_DRAIN_S (15000: how long bots may stay after SIGTERM), BOT_HOST_REPORT_S (15),
 * BOT_HOST_VISIBILITY_MS (60000), BOT_HOST_BACKOFF_MIN_MS (250), BOT_HOST_BACKOFF_MAX_MS (1000),
 * BOT_HOST_FULL_POLL_MS (1000), BOT_HOST_CLAIM_RETRY_S (2), BOT_HELP_GRACE_S (12: how long a bot may sit on a
 * screen it does not recognise before it asks for help, bot/help.ts).
 * Browser and sandbox: BOT_HOST_PORT (default 8790), BOT_HOST_BIND (default 127.0.0.1),
 * CHROMIUM_PATH (default /usr/bin/chromium; without it /health answers 503 naming it),
 * BOT_CHROMIUM_SANDBOX (on: the sandbox or NOT READY; auto, the default: falls back to none,
 * and says so as `degraded`; off), BOT_HOST_SANDBOX: unset for real meetings;
 * `embedded` to run the platform sandbox in this process and send the platform hosts to it; or
 * `<port>:<spki hash>` for a sandbox started apart. SANDBOX_UNCONFIGURED_MEETINGS (embedded
 * sandbox): `not_found` (default) or `open`. OUTBOUND_ALLOW_PRIVATE (default false),
 * BOT_DOWNLOAD_MAX_BYTES, BOT_VIDEO_MAX_BYTES: what bots may fetch for users (bot/egress.ts).
 *
 * Each bot's Chromium dies with this process however it ends (setpriv --pdeathsig from util-linux;
 * without it /health says `degraded`), and at start the host reaps what a dead instance of its id
 * left (bot/browser-owner.ts, stray-browsers.ts).
 *
 * SIGTERM drains: no more pulls, /health 503 `draining`, bots stay until their meetings end or
 * BOT_HOST_DRAIN_S passes, then leave with `failure_cause: host_drained`; a second SIGTERM makes them leave
 * at once. The process exits when no bot is left.
 */

import { readFileSync } from "node:fs";
import os from "node:os";
import { ClaimRequest } from "../src/bot-channel/fleet.ts";
import { RECORDING_MAX_BYTES } from "../src/bot-channel/protocol.ts";
import { redactUrlSecrets } from "../src/url-secrets.ts";
import { parentDeathMissing } from "./bot/browser-owner.ts";
import { chromiumSandbox } from "./bot/chromium-sandbox.ts";
import { hostEgressFromEnv } from "./bot/egress.ts";
import { DEFAULT_HELP_GRACE_MS } from "./bot/help.ts";
import { WAV_HEADER_BYTES } from "./bot/wav.ts";
import {
	DEFAULT_BOT_CPU_BUDGET_PCT,
	DEFAULT_BOT_MEM_BUDGET_MB,
	DEFAULT_CPU_TARGET_PCT,
	DEFAULT_DISK_RESERVE_MB,
	DEFAULT_IDLE_MAX_PRESSURE,
	DEFAULT_MAX_CPU_PRESSURE,
	DEFAULT_MAX_MEM_PRESSURE,
	DEFAULT_MEM_RESERVE_MB,
	DEFAULT_PROFILE_DISK_MB,
} from "./fleet/capacity.ts";
import { Gateway } from "./fleet/gateway.ts";
import { PULL_DEFAULTS, PullLoop } from "./fleet/pull-loop.ts";
import { DEFAULT_REPORT_S, Reporter } from "./fleet/reporter.ts";
import { SpawnQueue } from "./fleet/spawn-queue.ts";
import { sandboxChromiumFlags } from "./sandbox/cert.ts";
import { startSandbox, unconfiguredMeetingsFromEnv } from "./sandbox/server.ts";
import { DEFAULT_SLOTS, hostReadiness, startBotHost } from "./service.ts";

const env = process.env;
const fail = (line: string): never => {
	console.error(line);
	process.exit(1);
};
/** A whole number setting: its default when unset, an exit naming it when it is not one. */
const whole = (name: string, fallback: number, min = 0): number => {
	const raw = env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	if (!Number.isSafeInteger(value) || value < min) fail(`${name} must be a whole number of at least ${min}`);
	return value;
};
/** A percentage setting: its default when unset, an exit naming it when it is not in (min, 100]. */
const percent = (name: string, fallback: number, min = 0): number => {
	const raw = env[name];
	if (raw === undefined || raw === "") return fallback;
	const value = Number(raw);
	if (!Number.isFinite(value) || value <= min || value > 100) fail(`${name} must be a number above ${min} and at most 100 (percent)`);
	return value;
};
const positiveNumber = (name: string): number => {
	const value = Number(env[name]);
	if (!Number.isFinite(value) || value <= 0) fail(`${name} must be a positive number`);
	return value;
};

const credentialFile = env.BOT_HOST_CREDENTIAL_FILE ?? "";
if (credentialFile && env.BOT_HOST_CREDENTIAL) fail("set BOT_HOST_CREDENTIAL or BOT_HOST_CREDENTIAL_FILE, not both");
/** The host's credential as it stands now: a mounted file may appear or change while the host runs. */
const credential = (): string | null => {
	if (!credentialFile) return env.BOT_HOST_CREDENTIAL?.trim() || null;
	try {
		return readFileSync(credentialFile, "utf8").trim() || null;
	} catch {
		return null;
	}
};
const noCredential = (): string | null => {
	if (credential()) return null;
	if (credentialFile)
		return `the credential file ${credentialFile} (BOT_HOST_CREDENTIAL_FILE) is missing or empty: this host cannot claim meetings`;
	const retired = env.BOT_HOST_SECRET ? "BOT_HOST_SECRET is retired: " : "";
	return `${retired}this host has no credential of its own: mint one for its host id (POST /admin/bot-hosts) and set BOT_HOST_CREDENTIAL or BOT_HOST_CREDENTIAL_FILE`;
};
const sandboxSetting = env.BOT_HOST_SANDBOX ?? "";
let extraFlags: string[] = [];
let closeSandbox = async () => {};
if (sandboxSetting === "embedded") {
	const sandbox = await startSandbox({
		port: Number(env.SANDBOX_PORT ?? 0),
		unconfiguredMeetings: unconfiguredMeetingsFromEnv(env.SANDBOX_UNCONFIGURED_MEETINGS),
	});
	extraFlags = sandbox.chromiumFlags;
	closeSandbox = () => sandbox.close();
	console.log(`sandbox on 127.0.0.1:${sandbox.port}, control API ${sandbox.controlUrl}`);
} else if (sandboxSetting) {
	const [port, spki] = sandboxSetting.split(":");
	if (!port || !spki) fail("BOT_HOST_SANDBOX must be `embedded` or `<port>:<spki hash>`");
	extraFlags = sandboxChromiumFlags(Number(port), spki as string);
}

const executablePath = env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const bind = env.BOT_HOST_BIND || "127.0.0.1";
const slots = env.BOT_HOST_SLOTS ? whole("BOT_HOST_SLOTS", DEFAULT_SLOTS, 1) : whole("BOT_HOST_MAX_BOTS", DEFAULT_SLOTS, 1);
const hostId = env.BOT_HOST_ID || os.hostname();
const version = env.BOT_HOST_VERSION || packageVersion();
// Named in every claim: one the gateway would refuse (422) would leave the host claiming nothing.
if (!ClaimRequest.shape.host_id.safeParse(hostId).success)
	fail(`the host id ${JSON.stringify(hostId)} (BOT_HOST_ID, default the hostname) must be 1-200 letters, digits and . _ : -`);
if (!ClaimRequest.shape.version.safeParse(version).success) fail("BOT_HOST_VERSION must be at most 100 characters");
const gatewayUrl = env.BOT_HOST_GATEWAY_URL ?? "";
// Tickets come through the Worker, with this host's own credential; SPAWN_QUEUE_URL (a bare
// queue, with SPAWN_QUEUE_TOKEN) is for tests and benches only (docs/bot-fleet.md#host-credentials).
const directQueue = env.SPAWN_QUEUE_URL ?? "";
const queueUrl = directQueue || (gatewayUrl ? `${gatewayUrl.replace(/\/+$/, "")}/internal/bot-hosts/queue` : "");
// A URL in a line (a gateway's, a page's) never carries a credential into the host's log.
const log = (line: string) => console.log(redactUrlSecrets(line));
const sandbox = chromiumSandbox(executablePath, env.BOT_CHROMIUM_SANDBOX, (line) => console.error(line));
// Not an exit: the host still answers /health, so `npm start` and a probe hear what is missing.
const blockers = () => [
	...(gatewayUrl ? [] : ["BOT_HOST_GATEWAY_URL is not set: this host cannot pull or claim meetings"]),
	...[noCredential()].filter((problem) => problem !== null),
	...(sandbox.problem?.fatal ? [sandbox.problem.detail] : []),
];
const orphanable = parentDeathMissing();
if (orphanable) console.error(`WARNING: ${orphanable}`);
const warnings = [...(sandbox.problem && !sandbox.problem.fatal ? [sandbox.problem.detail] : []), ...(orphanable ? [orphanable] : [])];
const host = await startBotHost({
	port: Number(env.BOT_HOST_PORT ?? 8790),
	bind,
	browser: {
		executablePath,
		extraFlags,
		fakeDevices: true,
		sandbox: sandbox.sandbox,
	},
	egress: hostEgressFromEnv(env),
	slots,
	capacity: {
		botMemBudgetMb: whole("BOT_MEM_BUDGET_MB", DEFAULT_BOT_MEM_BUDGET_MB, 1),
		memReserveMb: whole("BOT_MEM_RESERVE_MB", DEFAULT_MEM_RESERVE_MB),
		...(env.BOT_HOST_MAX_LOAD ? { maxLoad: positiveNumber("BOT_HOST_MAX_LOAD") } : {}),
		procDir: env.BOT_HOST_PROC_DIR || "/proc",
		cpuTargetPct: percent("BOT_HOST_CPU_TARGET", DEFAULT_CPU_TARGET_PCT),
		botCpuBudgetPct: percent("BOT_CPU_BUDGET_PCT", DEFAULT_BOT_CPU_BUDGET_PCT),
		maxCpuPressure: percent("BOT_HOST_MAX_CPU_PRESSURE", DEFAULT_MAX_CPU_PRESSURE),
		maxMemPressure: percent("BOT_HOST_MAX_MEM_PRESSURE", DEFAULT_MAX_MEM_PRESSURE),
		idleMaxPressure: percent("BOT_HOST_IDLE_MAX_PRESSURE", DEFAULT_IDLE_MAX_PRESSURE),
		profileDiskMb: whole("BOT_PROFILE_DISK_MB", DEFAULT_PROFILE_DISK_MB, 16),
		diskReserveMb: whole("BOT_HOST_DISK_RESERVE_MB", DEFAULT_DISK_RESERVE_MB),
	},
	recordingMaxBytes: whole("BOT_RECORDING_MAX_BYTES", RECORDING_MAX_BYTES, WAV_HEADER_BYTES + 2),
	session: { helpGraceMs: whole("BOT_HELP_GRACE_S", DEFAULT_HELP_GRACE_MS / 1000, 1) * 1000 },
	hostId,
	version,
	blockers,
	warnings,
	log,
});
console.log(`bot host ${hostId} (${version}) listening on ${bind}:${host.port}, ${slots} slot(s)`);
const readiness = hostReadiness(executablePath, undefined, blockers(), warnings);
if (readiness.status === "unavailable") console.error(`bot host NOT READY: ${readiness.problems.join("; ")}`);
else if (readiness.status === "degraded") console.error(`bot host degraded: ${readiness.problems.join("; ")}`);

let pullLoop: PullLoop | null = null;
let reporter: Reporter | null = null;
if (gatewayUrl) {
	const gateway = new Gateway({ url: gatewayUrl, credential });
	pullLoop = new PullLoop({
		queue: new SpawnQueue({ url: queueUrl, token: directQueue ? env.SPAWN_QUEUE_TOKEN || undefined : credential, log }),
		gateway,
		host,
		hostId,
		version,
		log,
		visibilityMs: whole("BOT_HOST_VISIBILITY_MS", PULL_DEFAULTS.visibilityMs, 1_000),
		backoffMinMs: whole("BOT_HOST_BACKOFF_MIN_MS", PULL_DEFAULTS.backoffMinMs, 1),
		backoffMaxMs: whole("BOT_HOST_BACKOFF_MAX_MS", PULL_DEFAULTS.backoffMaxMs, 1),
		fullPollMs: whole("BOT_HOST_FULL_POLL_MS", PULL_DEFAULTS.fullPollMs, 1),
		claimRetryDelayS: whole("BOT_HOST_CLAIM_RETRY_S", PULL_DEFAULTS.claimRetryDelayS),
	});
	pullLoop.start();
	reporter = new Reporter({
		gateway,
		report: () => host.report(),
		intervalMs: whole("BOT_HOST_REPORT_S", DEFAULT_REPORT_S, 1) * 1000,
		log,
	});
	reporter.start();
}

const drainMs = whole("BOT_HOST_DRAIN_S", 15_000) * 1000;
let draining: Promise<void> | null = null;
const drain = () => {
	if (draining) {
		void host.drain(drainMs);
		return;
	}
	draining = (async () => {
		const drained = host.drain(drainMs);
		await pullLoop?.stop();
		await drained;
		reporter?.stop();
		// The last report says the host is gone from the fleet's figures.
		await reporter?.send();
		await host.shutdown();
		await closeSandbox();
		console.log("bot host: no bot left; exiting");
		process.exit(0);
	})();
};
process.on("SIGTERM", drain);
process.on("SIGINT", drain);
// A bug in one bot must not take the others down.
process.on("uncaughtException", (err) => console.error("bot host: uncaught", err));
process.on("unhandledRejection", (err) => console.error("bot host: unhandled rejection", err));

function packageVersion(): string {
	try {
		const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: unknown };
		return typeof pkg.version === "string" ? pkg.version : "unknown";
	} catch {
		return "unknown";
	}
}
