// `npm start`: the whole service on this machine with its embedded defaults: local D1, R2 and
// Durable Objects under .local/state (kept across restarts), the gateway on
// API_GATEWAY_HOST_PORT (default 18056), the local spawn queue and BOT_HOSTS bot hosts
// (docs/bot-fleet.md#running-it-locally). Ctrl-C stops everything it started.
// The bot host's Debian packages come first, as for `npm test`: without Chromium no bot starts.
import { BOT_HOST_PACKAGES, ensureDebianPackages, prepare } from "./toolchain.mjs";

prepare();
ensureDebianPackages(BOT_HOST_PACKAGES);

const { startLocalStack } = await import("./local-stack.mjs");
const { stopAll } = await import("./processes.mjs");
try {
	await startLocalStack({ announce: true });
} catch (err) {
	// What did start (queue, sandbox, hosts, gateway) must not outlive a failed start.
	process.stderr.write(`npm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
	process.exitCode = 1;
	stopAll(1);
}
