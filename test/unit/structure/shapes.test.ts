/// <reference types="vite/client" />
import { getTableColumns } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import apiDoc from "../../../docs/api.md?raw";
import openapi from "../../../packages/client/openapi.json";
import { StreamTranscript } from "../../../src/agent/meeting-stream-events";
import { BotSegment } from "../../../src/bot-channel/protocol";
import { transcriptSegments } from "../../../src/db/schema";
import { LiveSegment } from "../../../src/live/frames";
import { liveSegment, SEGMENT_COLUMNS, segmentView } from "../../../src/meetings/transcript-store";
import { TranscriptSegment } from "../../../src/routes/meeting-schemas";
import { SEGMENT_KEYS, Segment, SegmentRecord, SegmentView } from "../../../src/shapes/segment";

/**
 * Every domain shape is declared once, in src/shapes/ (docs/architecture.md), and each wire takes
 * a projection of it. These checks fail when a second declaration of a shape appears, or when a
 * projection, the store or drizzle no longer carries every key of the shape. Sources are read at
 * build time, as test/unit/docs/layers.test.ts reads them.
 */
const sources = import.meta.glob<string>(
	[
		"../../../src/**/*.ts",
		"../../../durable-objects/**/*.ts",
		"../../../bot-host/**/*.ts",
		"../../../dashboard/src/**/*.{ts,tsx}",
		"../../../packages/client/src/**/*.ts",
		"!**/*.test.ts",
		"!**/node_modules/**",
		"!../../../packages/client/src/schema.ts",
	],
	{ query: "?raw", import: "default", eager: true },
);
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text }));

/** The body of each declared field list: an interface, an object type alias, or a z.object. */
function declarations(text: string): string[] {
	const found: string[] = [];
	for (const start of text.matchAll(/\binterface\s+\w+[^{]*\{|\btype\s+\w+\s*=\s*\{|\bz\s*\.\s*object\(\s*\{/g)) {
		let depth = 0;
		let end = start.index + start[0].length - 1;
		for (; end < text.length; end++) {
			if (text[end] === "{") depth++;
			else if (text[end] === "}" && --depth === 0) break;
		}
		found.push(text.slice(start.index, end + 1));
	}
	return found;
}

/** Keys only one shape has: a field list naming all of one set declares that shape again. */
const SHAPE_MARKERS: Record<string, { home: string; keys: string[] }> = {
	segment: { home: "src/shapes/segment.ts", keys: ["segment_id", "speaker_source"] },
	help: { home: "src/shapes/help.ts", keys: ["page_text", "kind"] },
	diagnostics: { home: "src/shapes/help.ts", keys: ["page_state", "steps"] },
	placement: { home: "src/shapes/placement.ts", keys: ["hosts_reporting"] },
	"meeting data": { home: "src/shapes/meeting-data.ts", keys: ["help_history"] },
	recording: { home: "src/shapes/recording.ts", keys: ["storage_backend"] },
	"webhook status step": { home: "src/shapes/webhook.ts", keys: ["transition_source"] },
	"webhook envelope": { home: "src/shapes/webhook.ts", keys: ["event_id", "api_version"] },
	summary: { home: "src/shapes/summary.ts", keys: ["action_items", "generated_at"] },
};

describe("each domain shape", () => {
	it.each(Object.entries(SHAPE_MARKERS))("%s is declared once, in src/shapes/", (_name, { home, keys }) => {
		const homes = files.filter((f) => declarations(f.text).some((d) => keys.every((k) => new RegExp(`\\b${k}\\??\\s*:`).test(d))));
		expect(homes.map((f) => f.path)).toEqual([home]);
	});

	it("src/shapes/ imports only zod and itself, so the bot host and the dashboard can read it", () => {
		const shapes = files.filter((f) => f.path.startsWith("src/shapes/"));
		expect(shapes.length).toBeGreaterThan(5);
		for (const f of shapes) {
			for (const m of f.text.matchAll(/\bfrom\s+"([^"]+)"/g)) expect(m[1], f.path).toMatch(/^(zod|\.\/[\w-]+\.ts)$/);
		}
	});
});

describe("the segment's projections", () => {
	const full: BotSegment = {
		segment_id: "s-1",
		speaker: "Ada",
		speaker_source: "caption",
		text: "hello",
		start: 1,
		end: 2,
		language: "en",
		completed: true,
		confidence: 0.9,
		words: [{ word: "hello", start: 1, end: 2 }],
		source: "captions",
		absolute_start_time: "2026-01-01T00:00:01.000Z",
		absolute_end_time: "2026-01-01T00:00:02.000Z",
	};
	const createdAt = "2026-01-01T00:00:03.000Z";

	it("the bot sends every key but the one the service stamps", () => {
		expect(Object.keys(BotSegment.shape)).toEqual(SEGMENT_KEYS.filter((k) => k !== "created_at"));
		expect(Object.keys(full).sort()).toEqual(Object.keys(BotSegment.shape).sort());
	});

	it("REST, /ws and the store's columns carry every key of the shape", () => {
		const viewKeys = Object.keys(SegmentView.shape).sort();
		expect(Object.keys(TranscriptSegment.shape).sort()).toEqual(viewKeys);
		expect(Object.keys(LiveSegment.shape).sort()).toEqual(viewKeys);
		expect(SEGMENT_COLUMNS).toEqual(["meeting_id", ...Object.keys(Segment.shape), "updated_at"]);
	});

	it("drizzle's transcript_segments has exactly the store's columns", () => {
		// `id`, the row's own key (migration 0013), is the table's and not the segment's.
		const columns = Object.values(getTableColumns(transcriptSegments))
			.map((c) => c.name)
			.filter((name) => name !== "id");
		expect(columns.sort()).toEqual([...SEGMENT_COLUMNS].sort());
	});

	it("the /ws builder fills every key of a full segment, as LiveSegment declares it", () => {
		const live = liveSegment(full, createdAt);
		expect(Object.keys(live).sort()).toEqual(Object.keys(LiveSegment.shape).sort());
		expect(LiveSegment.strict().safeParse(live).success).toBe(true);
	});

	it("the REST view fills every key from a stored row, as TranscriptionSegment declares it", () => {
		const byColumn: Record<string, unknown> = { ...full, created_at: createdAt, meeting_id: 1, updated_at: createdAt, id: 1 };
		const row = Object.fromEntries(
			Object.entries(getTableColumns(transcriptSegments)).map(([property, column]) => [property, byColumn[column.name]]),
		) as typeof transcriptSegments.$inferSelect;
		const view = segmentView(row);
		expect(Object.keys(view).sort()).toEqual(Object.keys(TranscriptSegment.shape).sort());
		expect(TranscriptSegment.strict().safeParse(view).success).toBe(true);
	});

	it("both views show the keys in the shape's order, the two time namings after `end`", () => {
		const order = SEGMENT_KEYS.flatMap((k) => (k === "end" ? [k, "start_time", "end_time"] : [k]));
		expect(Object.keys(liveSegment(full, createdAt))).toEqual(order);
		expect(order.slice(0, 9)).toEqual([
			"segment_id",
			"speaker",
			"speaker_source",
			"text",
			"start",
			"end",
			"start_time",
			"end_time",
			"language",
		]);
	});

	it("/ws leaves out what the bot did not send, and says language as null", () => {
		const { confidence, words, language, ...bare } = full;
		const live = liveSegment({ ...bare, absolute_start_time: "", absolute_end_time: "" }, createdAt);
		expect(live).not.toHaveProperty("confidence");
		expect(live).not.toHaveProperty("words");
		expect(live).not.toHaveProperty("absolute_start_time");
		expect(live.language).toBeNull();
		expect(liveSegment({ ...full, confidence: 0, words: [] }, createdAt)).toMatchObject({ confidence: 0, words: [] });
	});

	it("docs/api.md's segment table explains every key a reader gets", () => {
		const table = apiDoc.slice(
			apiDoc.indexOf("A segment:\n"),
			apiDoc.indexOf("\n\n", apiDoc.indexOf("| field | meaning |", apiDoc.indexOf("A segment:\n"))),
		);
		const documented = new Set(
			table
				.split("\n")
				.filter((line) => line.startsWith("| `"))
				.flatMap((line) => [...(line.split(" | ")[0] ?? "").matchAll(/`(\w+)`/g)].map((m) => m[1])),
		);
		expect(Object.keys(SegmentRecord.shape).filter((key) => !documented.has(key))).toEqual([]);
	});

	it("the meeting stream's line takes its words from the shape", () => {
		for (const key of ["speaker", "text", "completed"] as const) expect(StreamTranscript.shape[key]).toBe(Segment.shape[key]);
	});
});

describe("the wires outside REST are components of /openapi.json", () => {
	const components = Object.keys(openapi.components.schemas);

	it.each(["LiveFrame", "LiveAction", "MeetingStreamEvent", "WebhookEvent", "MeetingHelp", "MeetingPlacement", "LiveSegment"])(
		"%s",
		(name) => expect(components).toContain(name),
	);

	it("the typed client names the generated /ws, stream and webhook types instead of copying them", () => {
		const client = files.filter((f) => f.path.startsWith("packages/client/src/"));
		const byPath = (p: string) => client.find((f) => f.path === p)?.text ?? "";
		for (const path of ["packages/client/src/live-frames.ts", "packages/client/src/webhooks.ts"]) {
			expect(byPath(path), path).toContain('from "./schema.js"');
		}
		expect(declarations(byPath("packages/client/src/live-frames.ts"))).toEqual([]);
		expect(byPath("packages/client/src/client.ts")).toMatch(/type MeetingStreamEvent = Schemas\["MeetingStreamEvent"\]/);
	});
});
