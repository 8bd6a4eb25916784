import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { waitForHealth } from "../../local-stack.mjs";
import { bin } from "../../toolchain.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

/** Starts the bare relay Worker with wrangler dev, as the gateway is started; resolves once it answers. */
export async function startRelayFloor({ port, stateDir }) {
	const child = spawn(
		bin("wrangler"),
		[
			"dev",
			"--config",
			path.join(here, "wrangler.toml"),
			"--port",
			String(port),
			"--ip",
			"127.0.0.1",
			"--persist-to",
			stateDir,
			"--show-interactive-dev-session=false",
		],
		{
			cwd: here,
			stdio: ["ignore", "ignore", "inherit"],
			env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
		},
	);
	try {
		await waitForHealth(`http://127.0.0.1:${port}/health`, 90_000);
	} catch (err) {
		child.kill("SIGTERM");
		throw err;
	}
	return child;
}
