import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { botHostCount, botHostPorts, launchBotHost, mintHostCredential, startSandbox, startSpawnQueue } from "./local-fleet.mjs";
import { localSecrets } from "./local-secrets.mjs";
import { engineVars, localSpeech } from "./local-speech.mjs";
import { freePort } from "./ports.mjs";
import { detailOutput, markBotHost, redactedLines, run, stopAll } from "./processes.mjs";
import { startBanner } from "./start-banner.mjs";
import { bin, root } from "./toolchain.mjs";

export {
	botHostCount,
	botHostPorts,
	CAPACITY_GATE_OFF,
	launchBotHost,
	mintHostCredential,
	SPAWN_QUEUE_ID,
	startBotHost,
	startSandbox,
	startSpawnQueue,
	stopBotHost,
} from "./local-fleet.mjs";
export { run } from "./processes.mjs";

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
export function applyMigrations(stateDir, quiet) {
	const result = spawnSync(bin("wrangler"), ["d1", "migrations", "apply", "DB", "--local", "--persist-to", stateDir], {
		cwd: root,
		encoding: "utf8",
		env: { ...process.env, CI: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
	});
	const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
	if (result.status === 0) {
		if (!quiet) detailOutput().out.write(result.stdout);
		return;
	}
	const duplicates = output.includes("DUPLICATE non-terminal meetings");
	// The duplicates are the user's to resolve: they go to the terminal, not only to npm start's log.
	(duplicates ? process.stderr : detailOutput().err).write(output);
	if (duplicates) {
		process.stderr.write("\nRefusing to start: resolve the duplicate meetings named above, then start again.\n");
		process.exit(EXIT_DUPLICATE_MEETINGS);
	}
	throw new Error("applying D1 migrations failed");
}

/**
 * `wrangler dev` on loopback `port` with local storage in `stateDir`; resolves once its /health
 * answers. `args` are extra flags (a `--config`, `--var`s); `quiet` hides its output, `silent` its
 * errors too.
 */
export async function wranglerDev({ port, stateDir, args = [], quiet = false, silent = false, cwd = root }) {
	// Wrangler's own pick of an inspector port tries 9229 first, so two stacks starting at once (npm test's
	// two lanes, a test beside `npm start`) could both take it and the second fail to bind: each gets its own.
	const inspector = args.includes("--inspector-port") ? [] : ["--inspector-port", String(await freePort())];
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
			"--show-interactive-dev-session=false",
			...inspector,
			...args,
		],
		{
			cwd,
			// Piped, not inherited: what wrangler prints (requests, errors quoting a URL) is redacted on its way.
			stdio: ["ignore", quiet || silent ? "ignore" : "pipe", silent ? "ignore" : "pipe"],
			env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
		},
	);
	if (child.stdout) redactedLines(child.stdout, detailOutput().out);
	if (child.stderr) redactedLines(child.stderr, detailOutput().err);
	try {
		await waitForHealth(`http://127.0.0.1:${port}/health`, 90_000);
	} catch (err) {
		child.kill("SIGTERM");
		throw err;
	}
	return child;
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
	return wranglerDev({ port, stateDir, quiet, args: ["--test-scheduled", ...varArgs] });
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

/** LOCAL_STATE_DIR: another place for the local data (a test runs npm start without touching yours). */
export const localStateDir = () => process.env.LOCAL_STATE_DIR || path.join(root, ".local", "state");

/**
 * The whole local service. `announce` (npm start): `{version, logFile}` for the banner printed
 * once it is up; without it nothing is printed.
 */
export async function startLocalStack({ announce }) {
	process.on("SIGINT", () => stopAll(0));
	process.on("SIGTERM", () => stopAll(0));
	const port = Number(process.env.API_GATEWAY_HOST_PORT || 18056);
	const botHostPort = Number(process.env.BOT_HOST_PORT || 18057);
	const sandboxPort = Number(process.env.SANDBOX_PORT || 18058);
	const queuePort = Number(process.env.SPAWN_QUEUE_PORT || 18059);
	const speechPort = Number(process.env.SPEECH_PORT || 18055);
	const hostCount = botHostCount();
	const sandboxOn = process.env.MEETBOT_SANDBOX !== "off";
	const stateDir = localStateDir();
	const secrets = localSecrets();
	const spawnQueue = await startSpawnQueue({ port: queuePort, token: process.env.SPAWN_QUEUE_TOKEN || undefined });
	const base = `http://127.0.0.1:${port}`;
	// One sandbox for every host, so a meeting opened through its control API is there whichever host claims the bot.
	const sandbox = sandboxOn ? await startSandbox({ port: sandboxPort, quiet: !announce }) : null;
	const hostIds = Array.from({ length: hostCount }, (_, i) => `local-${i + 1}`);
	const hostPorts = botHostPorts(botHostPort, hostCount, [port, sandboxPort, queuePort, speechPort]);
	// The speech service in the box (docs/speech.md) when a model file is present; bots reach it at SPEECH_URL.
	const speech = await localSpeech({ stateDir, port: speechPort, waitForHealth });
	const publicBaseUrl = process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {};
	await startGateway({
		port,
		stateDir,
		vars: {
			OUTBOUND_ALLOW_PRIVATE: "true",
			...spawnQueue.gatewayVars,
			...publicBaseUrl,
			...engineVars(speech.running !== null, secrets),
		},
	});
	// Each host claims with a credential of its own, minted (again, replacing the last start's) as an admin would.
	const hosts = await Promise.all(
		hostIds.map(async (id, i) => {
			const host = await launchBotHost({
				port: hostPorts[i],
				credential: await mintHostCredential(base, secrets.ADMIN_API_TOKEN, id),
				sandboxPort,
				sandbox: sandbox ? sandbox.setting : false,
				id,
				// Tickets come through the gateway with the host's own credential: only the gateway holds the queue's token.
				gatewayUrl: base,
				label: hostCount > 1 ? id : undefined,
				env: speech.running ? { SPEECH_URL: speech.running.url } : {},
			});
			markBotHost(host.child);
			return { id, port: hostPorts[i], ...host };
		}),
	);
	tickScheduled(base);
	const first = await ensureFirstUser(base, secrets.ADMIN_API_TOKEN, stateDir);
	if (announce) {
		const adminToken = first.fresh || process.env.ADMIN_API_TOKEN ? secrets.ADMIN_API_TOKEN : null;
		const banner = startBanner({
			version: announce.version,
			base,
			stateDir,
			adminToken,
			first,
			sandbox,
			spawnQueue,
			hosts,
			speech,
			logFile: announce.logFile,
		});
		process.stdout.write(banner.join("\n"));
	}
	return { base, secrets };
}
