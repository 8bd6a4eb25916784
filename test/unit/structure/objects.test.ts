/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import { importsOf as edgesOf, type SourceFile } from "./import-graph";

/**
 * The Durable Objects' house rules (README.md, durable-objects/), checked on the source text as
 * test/unit/docs/layers.test.ts reads it: each object's index.ts is its RPC surface and stays
 * short; the one alarm arbiter (durable-objects/shared/alarm-timers.ts) is the only code that
 * touches an object's alarm; every storage map has one form; and a context.ts imports none of the
 * parts it is handed to. That an object never imports another object's folder is
 * test/unit/structure/architecture.test.ts's rule.
 */
const sources = import.meta.glob<string>(["../../../src/**/*.ts", "../../../durable-objects/**/*.ts", "!**/*.test.ts"], {
	query: "?raw",
	import: "default",
	eager: true,
});
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text }));
const storageMaps = import.meta.glob<Record<string, unknown>>("../../../durable-objects/*/storage.ts", { eager: true });

/** The folders under durable-objects/ that hold an object (shared/ holds what they share). */
const OBJECT_FOLDERS = [...new Set(files.flatMap((f) => f.path.match(/^durable-objects\/([^/]+)\/index\.ts$/)?.[1] ?? []))].sort();

/** Lines an object's index.ts may take: its RPC list, one-line delegations, and their comments. */
const INDEX_MAX_LINES = 150;

/** The one module allowed to set, read or delete an object's alarm. */
const ALARM_ARBITER = "durable-objects/shared/alarm-timers.ts";

/** The files a file imports (values and types, `import("…")` types too), without their extension. */
const importsOf = (file: SourceFile) => edgesOf(file).map((edge) => edge.to.replace(/\.ts$/, ""));

const lineCount = (text: string) => text.split("\n").filter((line, i, all) => i < all.length - 1 || line !== "").length;

describe("the Durable Objects' structure", () => {
	it("finds every object folder", () => {
		expect(OBJECT_FOLDERS).toEqual(
			expect.arrayContaining([
				"account",
				"agent-user",
				"ip-guard",
				"live-feed",
				"meeting-room",
				"meeting-stream",
				"transcript-index",
				"workspace",
			]),
		);
	});

	it(`keeps each object's index.ts an RPC surface of at most ${INDEX_MAX_LINES} lines`, () => {
		const long = OBJECT_FOLDERS.map((folder) => files.find((f) => f.path === `durable-objects/${folder}/index.ts`))
			.filter((f) => f !== undefined)
			.map((f) => ({ path: f.path, lines: lineCount(f.text) }))
			.filter((f) => f.lines > INDEX_MAX_LINES);
		expect(long).toEqual([]);
	});

	it("arms alarms only in the one arbiter: no setAlarm, getAlarm or deleteAlarm elsewhere", () => {
		const offending = files
			.filter((f) => f.path !== ALARM_ARBITER)
			.flatMap((f) => [...f.text.matchAll(/\b(setAlarm|getAlarm|deleteAlarm)\b/g)].map((m) => `${f.path}: ${m[1]}`));
		expect(offending).toEqual([]);
		expect(files.find((f) => f.path === ALARM_ARBITER)?.text).toMatch(/\bsetAlarm\(/);
	});

	it("gives every object that has an alarm its timers from the arbiter", () => {
		const withAlarm = OBJECT_FOLDERS.filter((folder) => {
			const index = files.find((f) => f.path === `durable-objects/${folder}/index.ts`);
			return index && /\boverride\s+(async\s+)?alarm\(/.test(index.text);
		});
		expect(withAlarm.length).toBeGreaterThanOrEqual(6);
		const without = withAlarm.filter(
			(folder) =>
				!files.some((f) => f.path.startsWith(`durable-objects/${folder}/`) && /\.fire\(|\bAlarmTimers\b|\bkvAlarmTimers\b/.test(f.text)),
		);
		expect(without).toEqual([]);
	});

	it("keeps every storage map in one form: { keys, tables }, each a map of names to strings", () => {
		const folders = Object.keys(storageMaps).map((key) => key.match(/durable-objects\/([^/]+)\/storage\.ts$/)?.[1]);
		expect(folders.sort()).toEqual(OBJECT_FOLDERS);
		for (const [key, module] of Object.entries(storageMaps)) {
			const maps = Object.entries(module).filter(([name]) => name.endsWith("_STORAGE"));
			expect(
				maps.map(([name]) => name),
				key,
			).toHaveLength(1);
			const [, map] = maps[0] as [string, { keys: Record<string, unknown>; tables: Record<string, unknown> }];
			expect(Object.keys(map).sort(), key).toEqual(["keys", "tables"]);
			for (const value of [...Object.values(map.keys), ...Object.values(map.tables)]) expect(typeof value, key).toBe("string");
		}
	});

	it("keeps each context.ts below its parts: it imports no module of its folder that imports it back", () => {
		const contexts = files.filter((f) => /^durable-objects\/[^/]+\/context\.ts$/.test(f.path));
		expect(contexts.map((f) => f.path)).toContain("durable-objects/meeting-room/context.ts");
		const offending = contexts.flatMap((context) => {
			const self = context.path.replace(/\.ts$/, "");
			return importsOf(context)
				.map((target) => files.find((f) => f.path === `${target}.ts` || f.path === `${target}/index.ts`))
				.filter((part) => part !== undefined && importsOf(part).includes(self))
				.map((part) => `${context.path} → ${part?.path}`);
		});
		expect(offending).toEqual([]);
	});

	it("hands the room's feature parts to its context as hooks: context.ts imports only the room's own plumbing", () => {
		const context = files.find((f) => f.path === "durable-objects/meeting-room/context.ts");
		const plumbing = ["storage", "fanout", "webhook-relay", "command-queue"].map((name) => `durable-objects/meeting-room/${name}`);
		const inFolder = importsOf(context ?? { path: "", text: "" }).filter((target) => target.startsWith("durable-objects/meeting-room/"));
		expect(inFolder.length).toBeGreaterThan(0);
		expect(inFolder.filter((target) => !plumbing.includes(target))).toEqual([]);
	});

	it("keeps the room free of model calls: its summary is its stream's", () => {
		const room = files.filter((f) => f.path.startsWith("durable-objects/meeting-room/"));
		expect(room.length).toBeGreaterThan(10);
		const offending = room.filter((f) => /model-client|meeting-summary"|streamModelStep/.test(f.text)).map((f) => f.path);
		expect(offending).toEqual([]);
	});
});
