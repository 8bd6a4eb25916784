import { applyD1Migrations, env } from "cloudflare:test";
import { expect, it } from "vitest";

it("backfills tokens of an upgraded install with an empty scope set, and does not widen scoped tokens", async () => {
	const [first, ...rest] = env.TEST_MIGRATIONS;
	if (!first) throw new Error("no migrations");
	const db = env.UPGRADE_DB;
	await applyD1Migrations(db, [first]);
	await db.batch([
		db.prepare("INSERT INTO users (id, email, created_at) VALUES (1, 'old@example.com', '2025-01-01T00:00:00Z')"),
		db.prepare("INSERT INTO api_tokens (user_id, token_hash, scopes, created_at) VALUES (1, 'h-legacy', '', '2025-01-01T00:00:00Z')"),
		db.prepare("INSERT INTO api_tokens (user_id, token_hash, scopes, created_at) VALUES (1, 'h-tx', 'tx', '2025-01-01T00:00:00Z')"),
	]);
	await applyD1Migrations(db, rest);
	const rows = await db.prepare("SELECT token_hash, scopes FROM api_tokens ORDER BY id").all();
	expect(rows.results).toEqual([
		{ token_hash: "h-legacy", scopes: "bot,browser,tx" },
		{ token_hash: "h-tx", scopes: "tx" },
	]);
});
