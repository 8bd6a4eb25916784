import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { startLocalQueue } from "./local-queue.mjs";
import { localSecrets } from "./local-secrets.mjs";
import { bin, root } from "./toolchain.mjs";

const children = new Set();
/** Bot hosts drain on a first SIGTERM (their bots stay to the meeting's end); a second makes the bots leave now. */
const botHostChildren = new Set();

function stopAll(code = 0) {
	for (const child of children) child.kill("SIGTERM");
	setTimeout(() => {
		for (const child of botHostChildren) if (child.exitCode === null) child.kill("SIGTERM");
	}, 100).unref();
	setTimeout(() => process.exit(code), 500).unref();
}

export function run(command, args, options = {}) {
	const child = spawn(command, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], ...options });
	children.add(child);
	child.on("exit", () => children.delete(child));
	return child;
}

export async function waitForHealth(url, timeoutMs = 60_000) {
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		try {
			const res = await fetch(url);
			if (res.ok) return;
		} catch {
			// not listening yet
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/** Exit code when the data breaks the one-open-meeting-per-link rule (README.md, Choices worth knowing). */
export const EXIT_DUPLICATE_MEETINGS = 3;

/**
 * Applies D1 migrations to the local state. Data that breaks the uniqueness rule cannot be
 * migrated: the migration names the duplicates, and the process refuses to start with code 3.
 */
function applyMigrations(stateDir, quiet) {
	const result = spawnSync(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, CI: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
	});
	const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
	if (result.status === 0) {
		if (!quiet) process.stdout.write(result.stdout);
		return;
	}
	process.stderr.write(output);
	if (output.includes("DUPLICATE non-terminal meetings")) {
		process.stderr.write("\nRefusing to start: resolve the duplicate meetings named above, then start again.\n");
		process.exit(EXIT_DUPLICATE_MEETINGS);
	}
	throw new Error("applying D1 migrations failed");
}

/**
 * Starts wrangler dev (gateway + Durable Objects + local D1/R2) after applying migrations.
 * `stateDir` is where local storage persists; `vars` are extra deployment variables.
 * `PUBLIC_BASE_URL` defaults to the gateway's own loopback address.
 */
export async function startGateway({ port, stateDir, vars = {}, quiet = false }) {
	mkdirSync(stateDir, { recursive: true });
	applyMigrations(stateDir, quiet);
	// Bots reach the gateway at its own loopback address unless told otherwise (the Worker never takes it from a request).
	const withAddress = { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...vars };
	const varArgs = Object.entries(withAddress).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
	const child = run(
		bin("wrangler"),
		[
			"dev",
			"--port",
			String(port),
			"--ip",
			"127.0.0.1",
			"--persist-to",
			stateDir,
			"--test-scheduled",
			"--show-interactive-dev-session=false",
			...varArgs,
		],
		{
			stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
			env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
		},
	);
	await waitForHealth(`http://127.0.0.1:${port}/health`, 90_000);
	return child;
}

async function api(base, method, pathname, headers, body) {
	const res = await fetch(`${base}${pathname}`, {
		method,
		headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${await res.text()}`);
	return res.json();
}

/**
 * wrangler dev does not fire cron triggers, so the local runner calls the scheduled handler
 * (calendar sync, arming of upcoming plans) once a minute itself.
 */
function tickScheduled(base) {
	const tick = () => fetch(`${base}/__scheduled?cron=${encodeURIComponent("* * * * *")}`).catch(() => undefined);
	setInterval(tick, 60_000).unref();
	void tick();
}

/** First start only: one user with a bot,tx key, recorded so later starts do not mint again. */
async function ensureFirstUser(base, adminToken, stateDir) {
	const file = path.join(stateDir, "first-user.json");
	if (existsSync(file)) return { ...JSON.parse(readFileSync(file, "utf8")), fresh: false };
	const admin = { "X-Admin-API-Key": adminToken };
	const user = await api(base, "POST", "/admin/users", admin, { email: "dev@localhost.test", name: "Local developer" });
	const minted = await api(base, "POST", `/admin/users/${user.id}/tokens?scopes=bot,tx`, admin);
	writeFileSync(file, JSON.stringify({ user_id: user.id, email: user.email, token_id: minted.id }), { mode: 0o600 });
	return { user_id: user.id, email: user.email, token: minted.token, fresh: true };
}

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
		stdio: ["ignore", "pipe", "inherit"],
		env: { ...process.env, SANDBOX_PORT: String(port), ...env },
	});
	const setting = await new Promise((resolve, reject) => {
		let printed = "";
		const onData = (chunk) => {
			if (!quiet) process.stdout.write(chunk);
			printed += chunk;
			const match = /BOT_HOST_SANDBOX=(\d+:\S+)/.exec(printed);
			if (match) {
				child.off("exit", onExit);
				resolve(match[1]);
			}
		};
		const onExit = (code, signal) => reject(new Error(`the sandbox exited (${signal ?? `code ${code}`}) before it was ready`));
		child.stdout.on("data", onData);
		child.once("exit", onExit);
	}).catch((err) => {
		child.kill("SIGTERM");
		throw err;
	});
	// Keep draining its output so the pipe never fills.
	child.stdout.on("data", (chunk) => {
		if (!quiet) process.stdout.write(chunk);
	});
	const sandboxPort = Number(setting.split(":")[0]);
	return { child, port: sandboxPort, setting, controlUrl: `http://127.0.0.1:${sandboxPort}/__sandbox` };
}

/**
 * Starts a bot host process (bot-host/main.ts). `sandbox`: true runs the platform sandbox in
 * the same process on `sandboxPort`; a `<port>:<spki>` string points it at a shared sandbox
 * (startSandbox); false sends bots to the real platforms (Chromium reaches the sandbox through
 * --host-resolver-rules). With `queueUrl` and `gatewayUrl` it pulls spawn tickets from that
 * queue and claims them at that gateway as `id`. Resolves with the child and its health: a host
 * without a browser still runs, and `health.detail` names what is missing.
 */
export async function launchBotHost({
	port,
	secret,
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
	const child = run(bin("node"), ["bot-host/main.ts"], {
		stdio: ["ignore", onLine || label ? "pipe" : quiet ? "ignore" : "inherit", label ? "pipe" : "inherit"],
		env: {
			...process.env,
			BOT_HOST_PORT: String(port),
			BOT_HOST_SECRET: secret,
			// Like the gateway's: local avatars, pages and providers live on this machine.
			OUTBOUND_ALLOW_PRIVATE: "true",
			...sandboxEnv,
			...fleetEnv,
			...env,
		},
	});
	if (child.stdout && (onLine || label))
		createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => {
			onLine?.(line);
			if (label && !quiet) process.stdout.write(`[${label}] ${line}\n`);
		});
	if (child.stderr && label) prefixLines(child.stderr, process.stderr, label);
	try {
		return { child, health: await botHostHealth(child, `http://127.0.0.1:${port}/health`, 60_000) };
	} catch (err) {
		child.kill("SIGTERM");
		throw err;
	}
}

/** Copies a child's output line by line with its name in front, so several hosts' logs stay readable. */
function prefixLines(from, to, label) {
	createInterface({ input: from, crlfDelay: Number.POSITIVE_INFINITY }).on("line", (line) => to.write(`[${label}] ${line}\n`));
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
 * meetings (named `host_drained`); SIGKILL if it has not exited within `timeoutMs`.
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

export async function startLocalStack({ announce }) {
	process.on("SIGINT", () => stopAll(0));
	process.on("SIGTERM", () => stopAll(0));
	const port = Number(process.env.API_GATEWAY_HOST_PORT || 18056);
	const botHostPort = Number(process.env.BOT_HOST_PORT || 18057);
	const sandboxPort = Number(process.env.SANDBOX_PORT || 18058);
	const queuePort = Number(process.env.SPAWN_QUEUE_PORT || 18059);
	const hostCount = botHostCount();
	const sandboxOn = process.env.MEETBOT_SANDBOX !== "off";
	// LOCAL_STATE_DIR: another place for the local data (a test runs npm start without touching yours).
	const stateDir = process.env.LOCAL_STATE_DIR || path.join(root, ".local", "state");
	const secrets = localSecrets();
	const spawnQueue = await startSpawnQueue({ port: queuePort, token: process.env.SPAWN_QUEUE_TOKEN || undefined });
	const base = `http://127.0.0.1:${port}`;
	// One sandbox for every host, so a meeting opened through its control API is there whichever host claims the bot.
	const sandbox = sandboxOn ? await startSandbox({ port: sandboxPort, quiet: !announce }) : null;
	const hostIds = Array.from({ length: hostCount }, (_, i) => `local-${i + 1}`);
	const hostPorts = botHostPorts(botHostPort, hostCount, [port, sandboxPort, queuePort]);
	// Hosts pull before the gateway answers: the queue is empty until then, and a claim only follows a ticket.
	const hostsStarting = Promise.all(
		hostIds.map((id, i) =>
			launchBotHost({
				port: hostPorts[i],
				secret: secrets.BOT_HOST_SECRET,
				sandboxPort,
				sandbox: sandbox ? sandbox.setting : false,
				id,
				gatewayUrl: base,
				queueUrl: spawnQueue.url,
				queueToken: spawnQueue.token,
				label: hostCount > 1 ? id : undefined,
			}).then((host) => {
				botHostChildren.add(host.child);
				return { id, port: hostPorts[i], ...host };
			}),
		),
	);
	const publicBaseUrl = process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {};
	await startGateway({
		port,
		stateDir,
		vars: { OUTBOUND_ALLOW_PRIVATE: "true", ...spawnQueue.gatewayVars, ...publicBaseUrl },
	});
	const hosts = await hostsStarting;
	tickScheduled(base);
	const first = await ensureFirstUser(base, secrets.ADMIN_API_TOKEN, stateDir);
	if (announce) {
		const lines = [
			"",
			`Gateway:      ${base}  (local D1/R2/Durable Objects in ${stateDir.startsWith(root) ? path.relative(root, stateDir) : stateDir})`,
			`Dashboard:    ${base}/  (sign in with an API key; docs/dashboard.md)`,
			`Admin token:  ${first.fresh || process.env.ADMIN_API_TOKEN ? secrets.ADMIN_API_TOKEN : "in .dev.vars (ADMIN_API_TOKEN)"}`,
		];
		if (first.fresh) {
			lines.push(`User:         ${first.email} (id ${first.user_id})`, `API key:      ${first.token}   (shown once; bot,tx scopes)`);
			lines.push(`Try:          curl -H "X-API-Key: ${first.token}" ${base}/auth/me`);
			// A sandbox meeting exists only once its scenario is set, as a real one only once someone opens it.
			if (sandbox)
				lines.push(
					`Open meeting: curl -X POST -H "content-type: application/json" -d '{"participants":[{"name":"Alice","lines":["Hello there."]}]}' ${sandbox.controlUrl}/meetings/abc-defg-hij`,
				);
			lines.push(
				`Send a bot:   curl -X POST -H "X-API-Key: ${first.token}" -H "content-type: application/json" -d '{"platform":"google_meet","native_meeting_id":"abc-defg-hij"}' ${base}/bots`,
			);
		} else {
			lines.push(`User:         ${first.email} (id ${first.user_id}); its key was printed on the first start.`);
			lines.push(
				`New key:      curl -X POST -H "X-Admin-API-Key: <admin token>" "${base}/admin/users/${first.user_id}/tokens?scopes=bot,tx"`,
			);
		}
		lines.push(
			`Spawn queue:  ${spawnQueue.url}  (local stand-in for Cloudflare Queues' pull API; docs/bot-fleet.md)`,
			sandbox
				? `Sandbox:      control API ${sandbox.controlUrl}, shared by every bot host; MEETBOT_SANDBOX=off joins real meetings`
				: "Sandbox:      off: bots join real meetings",
		);
		for (const host of hosts) {
			const { health } = host;
			const state = !health.ready ? `NOT READY: ${health.detail}` : health.status === "degraded" ? `degraded: ${health.detail}` : "ready";
			lines.push(`Bot host:     ${host.id} on http://127.0.0.1:${host.port} (pid ${host.child.pid}), ${state}`);
		}
		if (hosts.some((h) => !h.health.ready))
			lines.push("              a host that is not ready takes no work; BOT_HOSTS=1..3 sets how many run");
		lines.push("Ctrl-C stops everything.", "");
		process.stdout.write(lines.join("\n"));
	}
	return { base, secrets };
}
