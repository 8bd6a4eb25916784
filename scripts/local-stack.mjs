import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { localSecrets } from "./local-secrets.mjs";
import { bin, root } from "./toolchain.mjs";

const children = new Set();

function stopAll(code = 0) {
	for (const child of children) child.kill("SIGTERM");
	setTimeout(() => process.exit(code), 300).unref();
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
 * Starts the bot host with the platform sandbox in the same process (MEETBOT_SANDBOX=off sends
 * bots to the real platforms instead; Chromium reaches the sandbox through
 * --host-resolver-rules). Resolves with the child and its health: a host without a browser
 * still runs, refusing spawns with the reason, and `health.detail` names what is missing.
 */
export async function launchBotHost({ port, secret, sandboxPort, sandbox = true, quiet = false, env = {} }) {
	const child = run(bin("node"), ["bot-host/main.ts"], {
		stdio: ["ignore", quiet ? "ignore" : "inherit", "inherit"],
		env: {
			...process.env,
			BOT_HOST_PORT: String(port),
			BOT_HOST_SECRET: secret,
			// Like the gateway's: local avatars, pages and providers live on this machine.
			OUTBOUND_ALLOW_PRIVATE: "true",
			...(sandbox ? { BOT_HOST_SANDBOX: "embedded", SANDBOX_PORT: String(sandboxPort) } : { BOT_HOST_SANDBOX: "" }),
			...env,
		},
	});
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

export async function startLocalStack({ announce }) {
	process.on("SIGINT", () => stopAll(0));
	process.on("SIGTERM", () => stopAll(0));
	const port = Number(process.env.API_GATEWAY_HOST_PORT || 18056);
	const botHostPort = Number(process.env.BOT_HOST_PORT || 18057);
	const sandboxPort = Number(process.env.SANDBOX_PORT || 18058);
	const sandbox = process.env.MEETBOT_SANDBOX !== "off";
	const stateDir = path.join(root, ".local", "state");
	const secrets = localSecrets();
	const botHost = await launchBotHost({ port: botHostPort, secret: secrets.BOT_HOST_SECRET, sandboxPort, sandbox });
	const publicBaseUrl = process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {};
	await startGateway({
		port,
		stateDir,
		vars: { OUTBOUND_ALLOW_PRIVATE: "true", BOT_HOST_URL: `http://127.0.0.1:${botHostPort}/`, ...publicBaseUrl },
	});
	const base = `http://127.0.0.1:${port}`;
	tickScheduled(base);
	const first = await ensureFirstUser(base, secrets.ADMIN_API_TOKEN, stateDir);
	if (announce) {
		const lines = [
			"",
			`Gateway:      ${base}  (local D1/R2/Durable Objects in .local/state)`,
			`Dashboard:    ${base}/  (sign in with an API key; docs/dashboard.md)`,
			`Admin token:  ${first.fresh || process.env.ADMIN_API_TOKEN ? secrets.ADMIN_API_TOKEN : "in .dev.vars (ADMIN_API_TOKEN)"}`,
		];
		if (first.fresh) {
			lines.push(`User:         ${first.email} (id ${first.user_id})`, `API key:      ${first.token}   (shown once; bot,tx scopes)`);
			lines.push(`Try:          curl -H "X-API-Key: ${first.token}" ${base}/auth/me`);
			// A sandbox meeting exists only once its scenario is set, as a real one only once someone opens it.
			if (sandbox)
				lines.push(
					`Open meeting: curl -X POST -H "content-type: application/json" -d '{"participants":[{"name":"Alice","lines":["Hello there."]}]}' http://127.0.0.1:${sandboxPort}/__sandbox/meetings/abc-defg-hij`,
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
			sandbox
				? `Bot host:     http://127.0.0.1:${botHostPort} with the platform sandbox (control API http://127.0.0.1:${sandboxPort}/__sandbox); MEETBOT_SANDBOX=off joins real meetings`
				: `Bot host:     http://127.0.0.1:${botHostPort}, joining real meetings`,
		);
		const { health } = botHost;
		if (!health.ready) lines.push(`Bot host:     NOT READY: ${health.detail}; every bot sent now fails with that reason`);
		else if (health.status === "degraded") lines.push(`Bot host:     degraded: ${health.detail}`);
		lines.push("Ctrl-C stops everything.", "");
		process.stdout.write(lines.join("\n"));
	}
	return { base, secrets };
}
