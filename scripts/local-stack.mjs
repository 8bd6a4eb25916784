import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { botHostCount, botHostPorts, launchBotHost, mintHostCredential, startSandbox, startSpawnQueue } from "./local-fleet.mjs";
import { localSecrets } from "./local-secrets.mjs";
import { freePort } from "./ports.mjs";
import { markBotHost, redactedLines, run, stopAll } from "./processes.mjs";
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
	if (child.stdout) redactedLines(child.stdout, process.stdout);
	if (child.stderr) redactedLines(child.stderr, process.stderr);
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
	const publicBaseUrl = process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {};
	await startGateway({
		port,
		stateDir,
		vars: { OUTBOUND_ALLOW_PRIVATE: "true", ...spawnQueue.gatewayVars, ...publicBaseUrl },
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
			});
			markBotHost(host.child);
			return { id, port: hostPorts[i], ...host };
		}),
	);
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
			`Spawn queue:  ${spawnQueue.url}  (local stand-in for Cloudflare Queues' pull API; hosts pull through the gateway; docs/bot-fleet.md)`,
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
