import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { localSecrets } from "../local-secrets.mjs";
import {
	CAPACITY_GATE_OFF,
	launchBotHost,
	mintHostCredential,
	startGateway,
	startSandbox,
	startSpawnQueue,
	stopBotHost,
} from "../local-stack.mjs";
import { freePort } from "../ports.mjs";
import { benchAgentChat } from "./agent-chat.mjs";
import { benchBots } from "./bots.mjs";
import { benchCalendarSync } from "./calendar-sync.mjs";
import { benchDashboard } from "./dashboard.mjs";
import { benchDensity, DENSITY_HOST, densityCounts, densityModes, printDensityComparison } from "./density.mjs";
import { benchFleetPlacement } from "./fleet.mjs";
import { benchGateway } from "./gateway.mjs";
import { benchHostileInputs } from "./hostile-inputs.mjs";
import { benchLiveFeed } from "./live-feed.mjs";
import { benchMeetingStream } from "./meeting-stream.mjs";
import { benchRecording, recordingBotCount } from "./recording.mjs";
import { benchSearch } from "./search.mjs";
import { startSpawnRecorder } from "./simulated-bot.mjs";
import { benchUsage } from "./usage.mjs";

const BENCH_PORT = Number(process.env.BENCH_PORT || 18156);

/** Sections that need no gateway, run only when named (`npm run bench -- wer`). */
const STANDALONE = {
	// The speech service's word error rate, speed and cost per bot (scripts/bench/wer.mjs).
	wer: async () => (await import("./wer.mjs")).benchWer(),
};

/** Starts a throw-away gateway and runs each benchmark section against it. */
export async function runBenchmarks(only) {
	const standalone = only.filter((name) => name in STANDALONE);
	for (const name of standalone) await STANDALONE[name]();
	only = only.filter((name) => !(name in STANDALONE));
	// Only standalone sections named: no gateway to start.
	if (standalone.length > 0 && only.length === 0) process.exit(0);
	const secrets = localSecrets();
	const recorder = await startSpawnRecorder({ adminToken: secrets.ADMIN_API_TOKEN });
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-"));
	// Limits high enough never to refuse, so the bucket's cost is measured, not its refusals.
	const gateway = await startGateway({
		port: BENCH_PORT,
		stateDir,
		quiet: true,
		vars: {
			GATEWAY_RATE_LIMIT_RPS: "1000000",
			GATEWAY_RATE_LIMIT_BURST: "1000000",
			// The live section holds 500 sockets of one user.
			LIVE_FEED_MAX_SOCKETS: "1000",
			OUTBOUND_ALLOW_PRIVATE: "true",
			...recorder.gatewayVars,
			BOT_REPORT_TIMEOUT_S: "600",
		},
	});
	const base = `http://127.0.0.1:${BENCH_PORT}`;
	const sections = [
		["gateway", benchGateway],
		["live", benchLiveFeed],
		["calendar", benchCalendarSync],
		["hostile", benchHostileInputs],
		["agent", benchAgentChat],
		["meeting-stream", benchMeetingStream],
		["dashboard", benchDashboard],
		// On a gateway of its own, its D1 seeded before it starts.
		["search", benchSearch],
		["usage", benchUsage],
		["bots", (ctx) => withRealBots(ctx, secrets, benchBots)],
		["fleet", (ctx) => benchFleet(ctx, secrets)],
		// What recording costs a bot on the host alone (CPU, memory, bytes a minute per mode), and 4 bots
		// recording 720p at once with captions to the room: only when named.
		[
			"recording-host",
			async () => {
				const { runRecordingBench } = await import("../../bot-host/bench/recording.ts");
				await runRecordingBench();
			},
			{ named: true },
		],
		// Minutes of up to 20 Chromiums at once: only when named (`npm run bench -- density`).
		[
			"density",
			async (ctx) => {
				const byMode = {};
				for (const mode of densityModes()) {
					const host = DENSITY_HOST(Math.max(...densityCounts()), mode);
					await withRealBots(ctx, secrets, async (c) => (byMode[mode] = await benchDensity(c, mode)), { host });
				}
				printDensityComparison(byMode);
			},
			{ named: true },
		],
		// What correcting captions to a vocabulary costs a bot, per caption change: only when named.
		[
			"caption-spelling",
			async () => {
				const { runCaptionSpellingBench } = await import("../../bot-host/bench/caption-spelling.ts");
				runCaptionSpellingBench();
			},
			{ named: true },
		],
		// The same goal through the Worker: 4 bots recording 720p, caption → /ws, the stored files' bytes: only when named.
		[
			"recording",
			(ctx) => withRealBots(ctx, secrets, benchRecording, { host: { env: { BOT_HOST_SLOTS: String(recordingBotCount()) } } }),
			{ named: true },
		],
	];
	try {
		const key = await benchKey(base, secrets.ADMIN_API_TOKEN);
		for (const [name, bench, { named = false } = {}] of sections) {
			if (only.length ? !only.includes(name) : named) continue;
			await bench({ base, key, recorder, adminToken: secrets.ADMIN_API_TOKEN, gatewayPid: gateway.pid });
		}
	} finally {
		await recorder.close();
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

/**
 * A second gateway for the real bots: it publishes spawn tickets to its own local queue, and
 * `hostCount` bot hosts (one shared sandbox) pull and claim them. `launches` maps each meeting
 * id to when a host's log said it launched that bot, i.e. won the claim, and which host.
 * `host`: how to start each host (another entry script, more env) instead of bot-host/main.ts.
 */
async function withRealBots(ctx, secrets, bench, { hostCount = 1, host = {} } = {}) {
	const port = await freePort();
	const botBase = `http://127.0.0.1:${port}`;
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-bots-"));
	const spawnQueue = await startSpawnQueue();
	const sandbox = await startSandbox({ quiet: true });
	const launches = new Map();
	const hosts = [];
	try {
		const gateway = await startGateway({
			port,
			stateDir,
			quiet: true,
			vars: {
				// Many /ws subscribers and bots of one user at once (the density section).
				LIVE_FEED_MAX_SOCKETS: "1000",
				GATEWAY_RATE_LIMIT_RPS: "1000",
				GATEWAY_RATE_LIMIT_BURST: "1000",
				...spawnQueue.gatewayVars,
			},
		});
		try {
			await Promise.all(
				Array.from({ length: hostCount }, async (_, i) => {
					const id = `bench-${i + 1}`;
					const { child, health } = await launchBotHost({
						port: await freePort(),
						credential: await mintHostCredential(botBase, secrets.ADMIN_API_TOKEN, id),
						sandboxPort: sandbox.port,
						sandbox: sandbox.setting,
						quiet: true,
						id,
						gatewayUrl: botBase,
						queueUrl: spawnQueue.url,
						queueToken: spawnQueue.token,
						onLine: (line) => {
							host.onLine?.(line);
							const launched = /bot for meeting (\d+) attempt \d+\b.*launched/.exec(line);
							if (launched && !launches.has(Number(launched[1]))) launches.set(Number(launched[1]), { at: performance.now(), host: id });
						},
						// The bench decides how many Chromiums run; the machine's load and pressure must not refuse them.
						env: { ...CAPACITY_GATE_OFF, ...host.env },
						...(host.entry ? { entry: host.entry } : {}),
					});
					hosts.push(child);
					if (!health.ready) throw new Error(`bot host ${id} is not ready: ${health.detail}`);
				}),
			);
			const key = await benchKey(botBase, secrets.ADMIN_API_TOKEN);
			const pids = { hosts: hosts.map((child) => child.pid), sandbox: sandbox.child.pid, gateway: gateway.pid };
			await bench({ ...ctx, botBase, key, sandboxUrl: sandbox.controlUrl, launches, hostCount, pids });
		} finally {
			gateway.kill("SIGTERM");
		}
	} finally {
		await Promise.all(hosts.map((child) => stopBotHost(child)));
		sandbox.child.kill("SIGTERM");
		await spawnQueue.queue.close();
		await new Promise((r) => setTimeout(r, 2000));
		rmSync(stateDir, { recursive: true, force: true });
	}
}

/** Time from POST /bots to a host's claim and to `active`, with one host and with three. */
async function benchFleet(ctx, secrets) {
	console.log("\n## Bot placement through the spawn queue (real bots in the platform sandbox)");
	for (const hostCount of [1, 3]) await withRealBots(ctx, secrets, benchFleetPlacement, { hostCount });
}
