// The bot fleet on one machine (docs/bot-fleet.md#running-it-locally): the spawn queue stand-in,
// one shared platform sandbox and bot host processes pulling from the queue.
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { redactUrlSecrets } from "../src/url-secrets.ts";
import { startLocalQueue } from "./local-queue.mjs";
import { detailOutput, redactedLines, run } from "./processes.mjs";
import { bin } from "./toolchain.mjs";

/**
 * A bot host's capacity gate turned off: the load average and both pressure limits can never be
 * exceeded (a pressure of 100% is the most there is). For hosts whose Chromiums a test or a bench
 * counts itself, on machines whose other work would otherwise keep the gate shut.
 */
export const CAPACITY_GATE_OFF = { BOT_HOST_MAX_LOAD: "1000", BOT_HOST_MAX_CPU_PRESSURE: "100", BOT_HOST_MAX_MEM_PRESSURE: "100" };

/**
 * Waits for the bot host's first answer on /health: ready (200) or not ready (503 naming what is
 * missing). Rejects at once when the process exits first, rather than waiting out the timeout.
 */
async function botHostHealth(child, url, timeoutMs) {
	const exited = new Promise((_, reject) =>
		child.once("exit", (code, signal) => reject(new Error(`the bot host exited (${signal ?? `code ${code}`}) before answering ${url}`))),
	);
	exited.catch(() => undefined);
	const answered = (async () => {
		const deadline = Date.now() + timeoutMs;
		while (Date.now() < deadline) {
			try {
				const res = await fetch(url);
				const body = await res.json().catch(() => ({}));
				if (res.ok || res.status === 503) return { ready: res.ok, ...body };
			} catch {
				// not listening yet
			}
			await new Promise((r) => setTimeout(r, 250));
		}
		throw new Error(`${url} did not answer within ${timeoutMs} ms`);
	})();
	return Promise.race([answered, exited]);
}

/**
 * Starts the platform sandbox as its own process (bot-host/sandbox/main.ts), for several bot
 * hosts to share. Resolves once it prints the setting a bot host needs (`<port>:<spki hash>`).
 */
export async function startSandbox({ port = 0, quiet = false, env = {} } = {}) {
	const child = run(bin("node"), ["bot-host/sandbox/main.ts"], {
		stdio: ["ignore", "pipe", "pipe"],
		env: { ...process.env, SANDBOX_PORT: String(port), ...env },
	});
	redactedLines(child.stderr, detailOutput().err);
	const setting = await new Promise((resolve, reject) => {
		let printed = "";
		// One listener for its whole life: it also keeps the pipe drained once the setting is read.
		child.stdout.on("data", (chunk) => {
			if (!quiet) detailOutput().out.write(chunk);
			if (printed === null) return;
			printed += chunk;
			const match = /BOT_HOST_SANDBOX=(\d+:\S+)/.exec(printed);
			if (match) {
				printed = null;
				child.off("exit", onExit);
				resolve(match[1]);
			}
		});
		const onExit = (code, signal) => reject(new Error(`the sandbox exited (${signal ?? `code ${code}`}) before it was ready`));
		child.once("exit", onExit);
	}).catch((err) => {
		child.kill("SIGTERM");
		throw err;
	});
	const sandboxPort = Number(setting.split(":")[0]);
	return { child, port: sandboxPort, setting, controlUrl: `http://127.0.0.1:${sandboxPort}/__sandbox` };
}

/**
 * Starts a bot host process (bot-host/main.ts). `sandbox`: true runs the platform sandbox in
 * the same process on `sandboxPort`; a `<port>:<spki>` string points it at a shared sandbox
 * (startSandbox); false sends bots to the real platforms (Chromium reaches the sandbox through
 * --host-resolver-rules). With `gatewayUrl` it pulls spawn tickets through that gateway and
 * claims them there as `id`, with `credential` (minted for `id`, e.g. by mintHostCredential);
 * `queueUrl` (and `queueToken`) make it pull from a bare queue instead, for tests and benches. `entry`: another host script (the density bench's). Resolves with the child and its health: a host without a browser still
 * runs, and `health.detail` names what is missing.
 */
export async function launchBotHost({
	port,
	credential,
	sandboxPort,
	sandbox = true,
	quiet = false,
	env = {},
	id,
	gatewayUrl,
	queueUrl,
	queueToken,
	label,
	onLine,
	entry = "bot-host/main.ts",
}) {
	const sandboxEnv =
		typeof sandbox === "string"
			? { BOT_HOST_SANDBOX: sandbox }
			: sandbox
				? { BOT_HOST_SANDBOX: "embedded", SANDBOX_PORT: String(sandboxPort) }
				: { BOT_HOST_SANDBOX: "" };
	const fleetEnv = {
		...(id ? { BOT_HOST_ID: id } : {}),
		...(gatewayUrl ? { BOT_HOST_GATEWAY_URL: gatewayUrl } : {}),
		...(queueUrl ? { SPAWN_QUEUE_URL: queueUrl } : {}),
		...(queueToken ? { SPAWN_QUEUE_TOKEN: queueToken } : {}),
	};
	const child = run(bin("node"), [entry], {
		// Piped, so that every line is redacted on its way (scripts/processes.mjs redactedLines).
		stdio: ["ignore", onLine || !quiet ? "pipe" : "ignore", "pipe"],
		env: {
			...process.env,
			BOT_HOST_PORT: String(port),
			...(credential ? { BOT_HOST_CREDENTIAL: credential } : {}),
			// Like the gateway's: local avatars, pages and providers live on this machine.
			OUTBOUND_ALLOW_PRIVATE: "true",
			...sandboxEnv,
			...fleetEnv,
			...env,
		},
	});
	const prefix = label ? `[${label}] ` : "";
	if (child.stdout)
		createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
			onLine?.(line);
			if (!quiet) detailOutput().out.write(`${prefix}${redactUrlSecrets(line)}\n`);
		});
	if (child.stderr) redactedLines(child.stderr, detailOutput().err, prefix);
	try {
		return { child, health: await botHostHealth(child, `http://127.0.0.1:${port}/health`, 60_000) };
	} catch (err) {
		child.kill("SIGTERM");
		throw err;
	}
}

/** The bot host for tests and benches, which need bots: one that is not ready is an error naming why. */
export async function startBotHost(options) {
	const { child, health } = await launchBotHost(options);
	if (health.ready) return child;
	child.kill("SIGTERM");
	throw new Error(`the bot host is not ready: ${health.detail ?? "no reason given"}`);
}

/**
 * Stops a bot host now: the first SIGTERM drains it, the second makes its bots leave their
 * meetings (`failure_cause: host_drained`); SIGKILL if it has not exited within `timeoutMs`.
 */
export async function stopBotHost(child, timeoutMs = 15_000) {
	if (child.exitCode !== null || child.signalCode !== null) return;
	const exited = new Promise((resolve) => child.once("exit", resolve));
	child.kill("SIGTERM");
	await new Promise((r) => setTimeout(r, 200));
	child.kill("SIGTERM");
	const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
	await exited;
	clearTimeout(timer);
}

/**
 * Mints a bot host's own credential at a gateway, as an operator does (POST /admin/bot-hosts;
 * minting again for the same id replaces the earlier one). The local stack, the tests and the
 * benches call this once the gateway is up, before they start the host.
 */
export async function mintHostCredential(base, adminToken, hostId) {
	const res = await fetch(`${base}/admin/bot-hosts`, {
		method: "POST",
		headers: { "X-Admin-API-Key": adminToken, "content-type": "application/json" },
		body: JSON.stringify({ host_id: hostId }),
	});
	if (res.status !== 201) throw new Error(`minting the credential of bot host ${hostId}: ${res.status} ${await res.text()}`);
	return (await res.json()).credential;
}

/** The spawn queue's id, locally and in the tests (each test stack has its own queue server). */
export const SPAWN_QUEUE_ID = "bot-spawns";

/**
 * A local fleet: the Queues stand-in (scripts/local-queue.mjs) with a fresh token, and the
 * gateway variables that make the Worker publish spawn tickets to it.
 */
export async function startSpawnQueue({ port = 0, token = randomBytes(18).toString("base64url") } = {}) {
	const queue = await startLocalQueue({ port, token });
	const url = queue.url(SPAWN_QUEUE_ID);
	return { queue, url, token, gatewayVars: { SPAWN_QUEUE_URL: url, SPAWN_QUEUE_TOKEN: token } };
}

/** BOT_HOST_PORT and the next ports after it, skipping the stack's other ports (18058, 18059 by default). */
export function botHostPorts(first, count, taken) {
	const ports = [];
	for (let p = first; ports.length < count; p++) if (!taken.includes(p)) ports.push(p);
	return ports;
}

/** How many bot hosts `npm start` runs: BOT_HOSTS, 1 to 3 (each a Chromium per bot on one machine). */
export function botHostCount(value = process.env.BOT_HOSTS) {
	if (value === undefined || value === "") return 1;
	const count = Number(value);
	if (!Number.isInteger(count) || count < 1 || count > 3) throw new Error(`BOT_HOSTS must be 1, 2 or 3 (got ${JSON.stringify(value)})`);
	return count;
}
