// A benchmark's gateway over a local D1 seeded before it starts: the search and usage benches.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { startGateway } from "../local-stack.mjs";
import { freePort } from "../ports.mjs";
import { bin, root } from "../toolchain.mjs";

/** A value as an SQL literal. */
export const sqlText = (value) => (value === null ? "NULL" : `'${String(value).replaceAll("'", "''")}'`);

/**
 * Writes straight into a local D1 (wrangler's --persist-to state) before the gateway opens it,
 * the search log's triggers noting each row as it lands: a second process writing under a running
 * `wrangler dev` broke its connection.
 */
export function seed(stateDir, sql) {
	const dir = mkdtempSync(path.join(os.tmpdir(), "meetbot-search-seed-"));
	const file = path.join(dir, "seed.sql");
	writeFileSync(file, sql);
	try {
		const result = spawnSync(bin("wrangler"), ["d1", "execute", "DB", "--local", "--persist-to", stateDir, "--file", file, "--yes"], {
			cwd: root,
			encoding: "utf8",
			env: { ...process.env, CI: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
			maxBuffer: 64 * 1024 * 1024,
		});
		if (result.status !== 0) throw new Error(`seeding failed:\n${result.stdout}${result.stderr}`);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/** A gateway of its own on a free port over a seeded `stateDir`, its bucket unlimited so only the reads are measured. */
export async function seededGateway(stateDir) {
	const port = await freePort();
	const gateway = await startGateway({
		port,
		stateDir,
		quiet: true,
		vars: { GATEWAY_RATE_LIMIT_RPS: "1000000", GATEWAY_RATE_LIMIT_BURST: "1000000" },
	});
	return { gateway, base: `http://127.0.0.1:${port}` };
}
