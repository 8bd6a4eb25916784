import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const wrangler = path.join(root, "node_modules", ".bin", "wrangler");
const env = { ...process.env, CI: "true", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

function d1(stateDir: string, args: string[]) {
	const result = spawnSync(wrangler, ["d1", ...args, "--local", "--persist-to", stateDir], { cwd: root, encoding: "utf8", env });
	if (result.status !== 0) throw new Error(`wrangler d1 ${args[0]}: ${result.stdout}${result.stderr}`);
}

it("refuses to start with exit code 3, naming them, when two open meetings share a link", () => {
	const stateDir = mkdtempSync(path.join(os.tmpdir(), "meetbot-startup-"));
	try {
		d1(stateDir, ["migrations", "apply", "DB"]);
		// An older install without the rule: two live meetings on one link, and 0004 not yet applied.
		d1(stateDir, [
			"execute",
			"DB",
			"--command",
			`DROP INDEX meetings_one_open_per_link;
			INSERT INTO users (id, email, created_at) VALUES (41, 'old@example.com', '2025-01-01T00:00:00Z');
			INSERT INTO meetings (user_id, platform, native_meeting_id, status, created_at, updated_at) VALUES
				(41, 'google_meet', 'dup-meet-ing', 'active', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z'),
				(41, 'google_meet', 'dup-meet-ing', 'requested', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z');
			DELETE FROM d1_migrations WHERE name = '0004_meeting_link_uniqueness.sql';`,
		]);
		const start = spawnSync(
			process.execPath,
			[
				"--input-type=module",
				"-e",
				`import { startGateway } from "./scripts/local-stack.mjs"; await startGateway({ port: 1, stateDir: ${JSON.stringify(stateDir)}, quiet: true });`,
			],
			{ cwd: root, encoding: "utf8", env, timeout: 120_000 },
		);
		expect(start.status).toBe(3);
		expect(start.stderr).toContain("DUPLICATE non-terminal meetings");
		expect(start.stderr).toContain("41/google_meet/dup-meet-ing");
	} finally {
		rmSync(stateDir, { recursive: true, force: true });
	}
});
