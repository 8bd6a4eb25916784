import path from "node:path";
import { fileURLToPath } from "node:url";
import { wranglerDev } from "../../local-stack.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * Starts the bare relay Worker with wrangler dev, as the gateway is started; resolves once it
 * answers. Silent: its bundler's service prints a Go stack trace when wrangler is stopped, and
 * a relay that fails to start shows as its health check timing out.
 */
export function startRelayFloor({ port, stateDir }) {
	return wranglerDev({ port, stateDir, silent: true, cwd: here, args: ["--config", path.join(here, "wrangler.toml")] });
}
