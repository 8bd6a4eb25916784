import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { localSecrets } from "../local-secrets.mjs";
import { startBotHost, startGateway } from "../local-stack.mjs";
import { freePort } from "../ports.mjs";
import { benchAgentChat } from "./agent-chat.mjs";
import { benchBots } from "./bots.mjs";
import { benchCalendarSync } from "./calendar-sync.mjs";
import { benchDashboard } from "./dashboard.mjs";
import { benchGateway } from "./gateway.mjs";
import { benchLiveFeed } from "./live-feed.mjs";
import { benchMeetingStream } from "./meeting-stream.mjs";
import { startSpawnRecorder } from "./simulated-bot.mjs";

const BENCH_PORT = Number(process.env.BENCH_PORT || 18156);

/** Starts a throw-away gateway and runs each benchmark section against it. */
export async function runBenchmarks(only) {
	const secrets = localSecrets();
	const recorder = await startSpawnRecorder();
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-"));
	// Limits high enough never to refuse, so the bucket's cost is measured, not its refusals.
	const gateway = await startGateway({
		port: BENCH_PORT,
		stateDir,
		quiet: true,
		vars: {
			GATEWAY_RATE_LIMIT_RPS: "1000000",
			GATEWAY_RATE_LIMIT_BURST: "1000000",
			OUTBOUND_ALLOW_PRIVATE: "true",
			BOT_HOST_URL: recorder.url,
			BOT_REPORT_TIMEOUT_S: "600",
		},
	});
	const base = `http://127.0.0.1:${BENCH_PORT}`;
	const sections = [
		["gateway", benchGateway],
		["live", benchLiveFeed],
		["calendar", benchCalendarSync],
		["agent", benchAgentChat],
		["meeting-stream", benchMeetingStream],
		["dashboard", benchDashboard],
		["bots", (ctx) => withRealBots(ctx, secrets, benchBots)],
	];
	try {
		const key = await benchKey(base, secrets.ADMIN_API_TOKEN);
		for (const [name, bench] of sections) {
			if (only.length && !only.includes(name)) continue;
			await bench({ base, key, recorder, adminToken: secrets.ADMIN_API_TOKEN });
		}
	} finally {
		recorder.server.close();
		gateway.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 500));
		rmSync(stateDir, { recursive: true, force: true });
	}
	process.exit(0);
}

/** One user for every section, with a key and a cap high enough for the benches. */
async function benchKey(base, adminToken) {
	const admin = { "X-Admin-API-Key": adminToken };
	const user = await (
		await fetch(`${base}/admin/users`, {
			method: "POST",
			headers: { ...admin, "content-type": "application/json" },
			body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, max_concurrent_bots: 50 }),
		})
	).json();
	const minted = await (await fetch(`${base}/admin/users/${user.id}/tokens?scopes=bot,tx`, { method: "POST", headers: admin })).json();
	return minted.token;
}

/** A second gateway wired to the real bot host (embedded sandbox), only for the bot section. */
async function withRealBots(ctx, secrets, bench) {
	const [port, botHostPort, sandboxPort] = [await freePort(), await freePort(), await freePort()];
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-bots-"));
	const botHost = await startBotHost({ port: botHostPort, secret: secrets.BOT_HOST_SECRET, sandboxPort, quiet: true });
	const gateway = await startGateway({
		port,
		stateDir,
		quiet: true,
		vars: { GATEWAY_RATE_LIMIT_RPS: "1000", GATEWAY_RATE_LIMIT_BURST: "1000", BOT_HOST_URL: `http://127.0.0.1:${botHostPort}/` },
	});
	const botBase = `http://127.0.0.1:${port}`;
	try {
		const key = await benchKey(botBase, secrets.ADMIN_API_TOKEN);
		await bench({ ...ctx, botBase, key, sandboxUrl: `http://127.0.0.1:${sandboxPort}/__sandbox` });
	} finally {
		gateway.kill("SIGTERM");
		botHost.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 2000));
		rmSync(stateDir, { recursive: true, force: true });
	}
}
