/**
 * Run the platform sandbox on its own: `node bot-host/sandbox/main.ts` (SANDBOX_PORT, default 8443;
 * SANDBOX_UNCONFIGURED_MEETINGS `not_found` (default) or `open`: what an id nobody configured is).
 * Prints the Chromium flags a bot host needs to reach it (BOT_HOST_SANDBOX=<port>:<spki>).
 */
import { startSandbox, unconfiguredMeetingsFromEnv } from "./server.ts";

const sandbox = await startSandbox({
	port: Number(process.env.SANDBOX_PORT ?? 8443),
	unconfiguredMeetings: unconfiguredMeetingsFromEnv(process.env.SANDBOX_UNCONFIGURED_MEETINGS),
});
console.log(`sandbox listening on 127.0.0.1:${sandbox.port}`);
console.log(`control API: ${sandbox.controlUrl}/meetings/<meeting id>`);
console.log(`bot host setting: BOT_HOST_SANDBOX=${sandbox.port}:${sandbox.spkiHash}`);
const stop = () => void sandbox.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
