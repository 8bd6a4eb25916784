/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";

/**
 * One way to D1 (README.md, "D1"; src/db/index.ts), checked on the source text:
 * - routes and Durable Objects call stores: no D1 binding, statement or drizzle of their own;
 * - D1 is reached only from store files. A store file is a module under src/ that says so in its
 *   header, before its first export: `Drizzle store` or `Raw SQL store (why)`;
 * - a store uses one SQL style: a drizzle store never prepares a statement, a raw store never asks
 *   `db(env)`, and a raw one says in its header why drizzle would not do;
 * - only src/meetings/meeting-data.ts sets or removes `meetings.data` keys (status-writes.ts writes
 *   the patch that module builds, in the same statement as a status move).
 */
const sources = import.meta.glob<string>(["../../../src/**/*.ts", "../../../durable-objects/**/*.ts", "!**/*.test.ts"], {
	query: "?raw",
	import: "default",
	eager: true,
});
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text }));

/** Where the drizzle instance and the schema live: the way in, not a store. */
const DB_MODULE = /^src\/db\//;
const RAW_ACCESS = /\.DB\.(prepare|batch|exec|dump)\b|\.prepare\(\s*["'`]/g;
const DRIZZLE_ACCESS = /\bdb\(/g;

/** The part of a file before its first export: where its header is. */
const headerOf = (text: string): string => text.slice(0, Math.max(0, text.search(/^export /m)));
const styleOf = (text: string): "drizzle" | "raw" | null => {
	const header = headerOf(text);
	if (/^\s*(\/\/|\*|\/\*\*)\s*Drizzle store\b/m.test(header)) return "drizzle";
	if (/^\s*(\/\/|\*|\/\*\*)\s*Raw SQL store \([^)]{10,}/m.test(header)) return "raw";
	return null;
};
const hits = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[0]);

const stores = files.filter((f) => f.path.startsWith("src/") && styleOf(f.text) !== null);

describe("one way to D1", () => {
	it("reads the sources and finds stores of both styles", () => {
		expect(files.length).toBeGreaterThan(100);
		expect(stores.filter((f) => styleOf(f.text) === "drizzle").length).toBeGreaterThan(5);
		expect(stores.filter((f) => styleOf(f.text) === "raw").length).toBeGreaterThan(5);
		expect(stores.map((f) => f.path)).toContain("src/meetings/meeting-data.ts");
	});

	it("keeps D1 out of Durable Objects and routes: they call stores", () => {
		const offending = files
			.filter((f) => f.path.startsWith("durable-objects/") || f.path.startsWith("src/routes/"))
			.flatMap((f) => hits(f.text, /\.DB\b|\.prepare\(\s*["'`]|\bdrizzle\b|\bdb\(/g).map((hit) => `${f.path}: ${hit}`));
		expect(offending).toEqual([]);
	});

	it("reaches D1 only from store files", () => {
		const offending = files
			.filter((f) => !DB_MODULE.test(f.path) && styleOf(f.text) === null)
			.flatMap((f) => [...hits(f.text, RAW_ACCESS), ...hits(f.text, DRIZZLE_ACCESS)].map((hit) => `${f.path}: ${hit}`));
		expect(offending).toEqual([]);
	});

	it("keeps stores in src/, each in its one SQL style", () => {
		expect(files.filter((f) => !f.path.startsWith("src/") && styleOf(f.text) !== null).map((f) => f.path)).toEqual([]);
		const mixed = stores.flatMap((f) => {
			const other = styleOf(f.text) === "drizzle" ? hits(f.text, RAW_ACCESS) : hits(f.text, DRIZZLE_ACCESS);
			return other.map((hit) => `${f.path} (${styleOf(f.text)}): ${hit}`);
		});
		expect(mixed).toEqual([]);
	});

	it("lets only meeting-data.ts set or remove keys of meetings.data", () => {
		const writer = "src/meetings/meeting-data.ts";
		expect(files.find((f) => f.path === writer)?.text).toMatch(/export async function patchMeetingData\(/);
		const keyWrites = files
			.filter((f) => f.path !== writer)
			.flatMap((f) =>
				hits(f.text, /json_(set|remove|insert|replace|patch)\(\s*(data\b|\$\{meetings\.data\}|meetings\.data\b)/g).map(
					(hit) => `${f.path}: ${hit}`,
				),
			);
		expect(keyWrites).toEqual([]);
		// An update of the meetings table that sets `data`: the writer, and the status path that writes its patch.
		const dataUpdates = files
			.filter((f) => f.path !== writer && f.path !== "src/meetings/status-writes.ts")
			.flatMap((f) =>
				hits(f.text, /\.update\(meetings\)\s*\.set\(\{[^}]*\bdata\b|UPDATE meetings SET[^`"]*\bdata\s*=/g).map(
					(hit) => `${f.path}: ${hit}`,
				),
			);
		expect(dataUpdates).toEqual([]);
		const statusWrites = files.find((f) => f.path === "src/meetings/status-writes.ts")?.text ?? "";
		expect(statusWrites).toMatch(/meetingDataPatch\(/);
	});
});
