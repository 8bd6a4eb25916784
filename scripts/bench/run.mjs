import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { localSecrets } from "../local-secrets.mjs";
import { startGateway } from "../local-stack.mjs";
import { benchGateway } from "./gateway.mjs";

const BENCH_PORT = Number(process.env.BENCH_PORT || 18156);

/** Starts a throw-away gateway and runs each benchmark section against it. */
export async function runBenchmarks(only) {
	const secrets = localSecrets();
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-bench-"));
	// Limits high enough never to refuse, so the bucket's cost is measured, not its refusals.
	const gateway = await startGateway({
		port: BENCH_PORT,
		stateDir,
		quiet: true,
		vars: { GATEWAY_RATE_LIMIT_RPS: "1000000", GATEWAY_RATE_LIMIT_BURST: "1000000", OUTBOUND_ALLOW_PRIVATE: "true" },
	});
	const base = `http://127.0.0.1:${BENCH_PORT}`;
	const sections = [["gateway", benchGateway]];
	try {
		for (const [name, bench] of sections) {
			if (only.length && !only.includes(name)) continue;
			await bench({ base, adminToken: secrets.ADMIN_API_TOKEN });
		}
	} finally {
		gateway.kill("SIGTERM");
		await new Promise((r) => setTimeout(r, 500));
		rmSync(stateDir, { recursive: true, force: true });
	}
	process.exit(0);
}
