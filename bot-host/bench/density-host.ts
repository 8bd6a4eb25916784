/**
 * The bot host of the density bench (`npm run bench -- density`, scripts/bench/density.mjs): the
 * real host (service.ts) pulling and claiming through the real spawn queue and gateway, like
 * `bot-host/main.ts`, with one difference: it takes every ticket up to BOT_HOST_SLOTS whatever
 * the machine's pressure, memory or load say. The bench decides how many Chromiums run; a
 * capacity gate refusing some would measure the gate, not what a bot costs.
 *
 * Env: BOT_HOST_PORT, BOT_HOST_SLOTS, BOT_HOST_ID, BOT_HOST_CREDENTIAL, BOT_HOST_GATEWAY_URL,
 * SPAWN_QUEUE_URL, SPAWN_QUEUE_TOKEN, BOT_HOST_SANDBOX (`<port>:<spki hash>` of a sandbox
 * started apart), CHROMIUM_PATH, BOT_CHROMIUM_SANDBOX, OUTBOUND_ALLOW_PRIVATE, as main.ts reads them;
 * and BENCH_BROWSER: `headed` (the bots' launch) or `headless`, the launch bots had before issue 31
 * (bot/browser.ts `formerHeadless`), to print its cost beside today's. No host setting offers it.
 */
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { hostEgressFromEnv } from "../bot/egress.ts";
import { Gateway } from "../fleet/gateway.ts";
import { PullLoop } from "../fleet/pull-loop.ts";
import { DEFAULT_REPORT_S, Reporter } from "../fleet/reporter.ts";
import { SpawnQueue } from "../fleet/spawn-queue.ts";
import { sandboxChromiumFlags } from "../sandbox/cert.ts";
import { startBotHost } from "../service.ts";

const env = process.env;
const need = (name: string): string => {
	const value = env[name];
	if (!value) {
		console.error(`bench density host: ${name} is not set`);
		process.exit(1);
	}
	return value;
};

const slots = Number(need("BOT_HOST_SLOTS"));
const hostId = need("BOT_HOST_ID");
const credential = need("BOT_HOST_CREDENTIAL");
const [sandboxPort, spki] = need("BOT_HOST_SANDBOX").split(":");
const executablePath = env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const log = (line: string) => console.log(line);
const sandboxed = chromiumSandbox(executablePath, env.BOT_CHROMIUM_SANDBOX, (line) => console.error(line)).sandbox;
const formerHeadless = env.BENCH_BROWSER === "headless";

const host = await startBotHost({
	port: Number(env.BOT_HOST_PORT ?? 0),
	browser: {
		executablePath,
		extraFlags: sandboxChromiumFlags(Number(sandboxPort), spki ?? ""),
		fakeDevices: true,
		sandbox: sandboxed,
		...(formerHeadless ? { formerHeadless } : {}),
	},
	egress: hostEgressFromEnv(env),
	slots,
	hostId,
	version: "density-bench",
	log,
});
const gateway = new Gateway({ url: need("BOT_HOST_GATEWAY_URL"), credential: () => credential });
const pullLoop = new PullLoop({
	queue: new SpawnQueue({ url: need("SPAWN_QUEUE_URL"), token: env.SPAWN_QUEUE_TOKEN || undefined, log }),
	gateway,
	host: {
		// Slots are the only limit here: see the header.
		capacity: () => ({ ...host.capacity(), free: Math.max(0, slots - host.bots.size), draining: false }),
		launch: (request) => host.launch(request),
	},
	hostId,
	version: "density-bench",
	log,
});
pullLoop.start();
// A host claims no more than the free slots it last reported (src/bot-channel/host-slots.ts):
// reports say the same free slots as above, or every claim is refused.
const reporter = new Reporter({
	gateway,
	report: () => ({ ...host.report(), free: Math.max(0, slots - host.bots.size), draining: false, limited_by: [], refusing: null }),
	intervalMs: DEFAULT_REPORT_S * 1000,
	log,
});
reporter.start();
console.log(
	`bench density host ${hostId} listening on 127.0.0.1:${host.port}, ${slots} slot(s), ${formerHeadless ? "headless (former)" : "headed"} bots`,
);

const stop = async () => {
	await pullLoop.stop();
	reporter.stop();
	await host.shutdown();
	process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
