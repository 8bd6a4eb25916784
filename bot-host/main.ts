/**
 * Bot host entry: `node bot-host/main.ts`.
 * BOT_HOST_PORT (default 8790), BOT_HOST_BIND (default 127.0.0.1), BOT_HOST_SECRET (required),
 * CHROMIUM_PATH (default /usr/bin/chromium; without it /health answers 503 and spawns are
 * refused, naming what is missing), BOT_CHROMIUM_SANDBOX (on, off, default auto),
 * BOT_HOST_SANDBOX: unset for real meetings; `embedded` to run the platform sandbox in this
 * process and send the platform hosts to it; or `<port>:<spki hash>` for a sandbox started apart.
 * SANDBOX_UNCONFIGURED_MEETINGS (embedded sandbox): `not_found` (default) or `open`.
 * OUTBOUND_ALLOW_PRIVATE (default false), BOT_DOWNLOAD_MAX_BYTES, BOT_VIDEO_MAX_BYTES: what bots
 * may fetch for users (bot/egress.ts). BOT_HOST_MAX_BOTS (default 20): live bots at most.
 */

import { chromiumSandbox } from "./bot/chromium-sandbox.ts";
import { hostEgressFromEnv } from "./bot/egress.ts";
import { sandboxChromiumFlags } from "./sandbox/cert.ts";
import { startSandbox, unconfiguredMeetingsFromEnv } from "./sandbox/server.ts";
import { DEFAULT_MAX_BOTS, hostReadiness, startBotHost } from "./service.ts";

const secret = process.env.BOT_HOST_SECRET ?? "";
if (!secret) {
	console.error("BOT_HOST_SECRET is required");
	process.exit(1);
}
const sandboxSetting = process.env.BOT_HOST_SANDBOX ?? "";
let extraFlags: string[] = [];
let closeSandbox = async () => {};
if (sandboxSetting === "embedded") {
	const sandbox = await startSandbox({
		port: Number(process.env.SANDBOX_PORT ?? 0),
		unconfiguredMeetings: unconfiguredMeetingsFromEnv(process.env.SANDBOX_UNCONFIGURED_MEETINGS),
	});
	extraFlags = sandbox.chromiumFlags;
	closeSandbox = () => sandbox.close();
	console.log(`sandbox on 127.0.0.1:${sandbox.port}, control API ${sandbox.controlUrl}`);
} else if (sandboxSetting) {
	const [port, spki] = sandboxSetting.split(":");
	if (!port || !spki) throw new Error("BOT_HOST_SANDBOX must be `embedded` or `<port>:<spki hash>`");
	extraFlags = sandboxChromiumFlags(Number(port), spki);
}

const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const bind = process.env.BOT_HOST_BIND || "127.0.0.1";
const maxBots = Number(process.env.BOT_HOST_MAX_BOTS || DEFAULT_MAX_BOTS);
if (!Number.isSafeInteger(maxBots) || maxBots < 1) {
	console.error("BOT_HOST_MAX_BOTS must be a positive whole number");
	process.exit(1);
}
const host = await startBotHost({
	port: Number(process.env.BOT_HOST_PORT ?? 8790),
	bind,
	secret,
	browser: {
		executablePath,
		extraFlags,
		fakeDevices: true,
		sandbox: chromiumSandbox(executablePath, process.env.BOT_CHROMIUM_SANDBOX, (line) => console.log(line)),
	},
	egress: hostEgressFromEnv(process.env),
	maxBots,
});
console.log(`bot host listening on ${bind}:${host.port}`);
// It keeps listening when not ready, so the Worker hears why a spawn is refused; the operator hears it here.
const readiness = hostReadiness(executablePath);
if (readiness.status === "unavailable") console.error(`bot host NOT READY: ${readiness.problems.join("; ")}`);
else if (readiness.status === "degraded") console.error(`bot host degraded: ${readiness.problems.join("; ")}`);

let stopping = false;
const shutdown = async () => {
	if (stopping) return;
	stopping = true;
	console.log("bot host: leaving meetings before exit");
	await host.shutdown();
	await closeSandbox();
	process.exit(0);
};
process.on("SIGTERM", () => void shutdown());
process.on("SIGINT", () => void shutdown());
// A bug in one bot must not take the others down.
process.on("uncaughtException", (err) => console.error("bot host: uncaught", err));
process.on("unhandledRejection", (err) => console.error("bot host: unhandled rejection", err));
