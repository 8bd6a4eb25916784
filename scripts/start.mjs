// `npm start`: the whole service on this machine with its embedded defaults: local D1, R2 and
// Durable Objects under .local/state (kept across restarts), the gateway on
// API_GATEWAY_HOST_PORT (default 18056), the local spawn queue and BOT_HOSTS bot hosts
// (docs/bot-fleet.md#running-it-locally). Ctrl-C stops everything it started.
// The terminal gets a short banner; what the processes print goes to the log file it names.
// The bot host's Debian packages come first, as for `npm test`: without Chromium no bot starts.
import { BOT_HOST_PACKAGES, ensureDebianPackages, prepare } from "./toolchain.mjs";

prepare();
ensureDebianPackages(BOT_HOST_PACKAGES);

const { localStateDir, startLocalStack } = await import("./local-stack.mjs");
const { sendDetailTo, stopAll } = await import("./processes.mjs");
const { openStartLog } = await import("./start-log.mjs");
const { serviceVersion } = await import("./version.mjs");

const log = openStartLog(localStateDir());
sendDetailTo(log);
try {
	await startLocalStack({ announce: { version: serviceVersion(), logFile: log.file } });
} catch (err) {
	// What did start (queue, sandbox, hosts, gateway) must not outlive a failed start.
	const tail = log.tail();
	process.stderr.write(
		[
			`npm start failed: ${err instanceof Error ? err.message : String(err)}`,
			...(tail.length > 0 ? ["The last lines of the detail log:", ...tail.map((line) => `  ${line}`)] : []),
			`The detail is in ${log.file}`,
			"",
		].join("\n"),
	);
	process.exitCode = 1;
	stopAll(1);
}
