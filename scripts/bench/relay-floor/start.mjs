import path from "node:path";
import { fileURLToPath } from "node:url";
import { wranglerDev } from "../../local-stack.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Starts the bare relay Worker with wrangler dev, as the gateway is started; resolves once it answers. */
export function startRelayFloor({ port, stateDir }) {
	return wranglerDev({ port, stateDir, quiet: true, cwd: here, args: ["--config", path.join(here, "wrangler.toml")] });
}
