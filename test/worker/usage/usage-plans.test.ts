/**
 * Every statement usage reads with (src/usage/usage-store.ts) reads through an index and scans
 * no table of meetings, relayed audio or recordings whole: GET /usage and a launch under a cap
 * cost what the account has, not what the deployment has.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { USAGE_SQL } from "../../../src/usage/usage-store";

/** The tables, and the aliases the storage statements give them (`r`, `f`, `p`). */
const TABLES = /^SCAN (meetings|transcription_usage|transcription_usage_meetings|recordings|media_files|media_file_parts|r|f|p)\b/;

describe("usage statements", () => {
	it("read each table through an index", async () => {
		expect(Object.keys(USAGE_SQL).length).toBe(6);
		for (const [name, sql] of Object.entries(USAGE_SQL)) {
			// Numbered parameters (?1, ?2...) are bound once each.
			const count = Math.max(...[...sql.matchAll(/\?(\d+)/g)].map((m) => Number(m[1])));
			const params = Array.from({ length: count }, (_, i) => (i === 0 && /json_each\(\?1\)/.test(sql) ? "[1,2]" : "x"));
			const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
				.bind(...params)
				.all<{ detail: string }>();
			const details = plan.results.map((r) => r.detail);
			expect(details.join("\n"), name).toMatch(/USING (COVERING )?INDEX|USING PRIMARY KEY/);
			expect(
				details.filter((d) => TABLES.test(d)),
				`${name}:\n${details.join("\n")}`,
			).toEqual([]);
		}
	});

	it("read an account's meetings by when they ended, not all of them", async () => {
		const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${USAGE_SQL.meetingTimes}`)
			.bind(1, "2025-03-01", "2025-04-01")
			.all<{ detail: string }>();
		const searches = plan.results.map((r) => r.detail).filter((d) => d.startsWith("SEARCH meetings"));
		expect(searches).toEqual([
			"SEARCH meetings USING INDEX meetings_usage (user_id=? AND end_time>?)",
			"SEARCH meetings USING INDEX meetings_usage (user_id=? AND end_time=?)",
		]);
	});
});
