import { env } from "cloudflare:test";
import { expect } from "vitest";

/**
 * Each statement reads through an index and never scans one of `tables` whole, not even in an
 * index's order (checked with EXPLAIN QUERY PLAN): its cost follows what it reads, not the table.
 */
export async function expectIndexedReads(queries: Record<string, string>, tables: string[]): Promise<void> {
	const scan = new RegExp(`^SCAN (${tables.join("|")})\\b`);
	for (const [name, sql] of Object.entries(queries)) {
		const params = (sql.match(/\?/g) ?? []).map(() => "x");
		const plan = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
			.bind(...params)
			.all<{ detail: string }>();
		const details = plan.results.map((r) => r.detail);
		expect(details.join("\n"), name).toMatch(/USING (COVERING )?INDEX/);
		expect(
			details.filter((d) => scan.test(d)),
			name,
		).toEqual([]);
	}
}
