import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SEGMENT_COLUMNS } from "../../../src/meetings/transcript-store";

/**
 * The transcript segment is declared once (src/shapes/segment.ts) and the store writes its keys
 * as columns: after the migrations, `transcript_segments` has exactly those columns, so a field
 * added to the shape without its migration (or a column without its field) fails here.
 */
describe("transcript_segments after the migrations", () => {
	it("has exactly the segment's stored keys as columns", async () => {
		const { results } = await env.DB.prepare("SELECT name FROM pragma_table_info('transcript_segments')").all<{ name: string }>();
		// `id`: the row's own key, which the search index refers to (migration 0013), not a field of the segment.
		expect(results.map((r) => r.name).sort()).toEqual(["id", ...SEGMENT_COLUMNS].sort());
	});
});
