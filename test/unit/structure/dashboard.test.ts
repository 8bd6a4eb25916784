/// <reference types="vite/client" />
import { describe, expect, it } from "vitest";
import snapshot from "../../../packages/client/openapi.json?raw";
import { MEETING_STATUSES } from "../../../src/meetings/statuses";
import { PLATFORMS } from "../../../src/platforms/index.ts";

/**
 * The dashboard stands on the typed client (docs/dashboard.md): every call is a method of
 * `createClient` with its route and body typed, the one SSE reader is the client's, the API's
 * shapes are the generated ones, and the platform and status lists come from the one place
 * that declares them. Checked on the source text, read at build time as the bundler sees it.
 */
const sources = import.meta.glob<string>(["../../../dashboard/src/**/*.{ts,tsx}", "!**/*.test.ts"], {
	query: "?raw",
	import: "default",
	eager: true,
});
/** The code without its comments: a comment may name what the code must not do. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/[^\n]*/g, "$1");
const files = Object.entries(sources).map(([key, text]) => ({ path: key.replace(/^(\.\.\/)+/, ""), text: code(text) }));

/** Where each pattern occurs, as `path:line: text`. */
function occurrences(pattern: RegExp, among = files): string[] {
	return among.flatMap((file) =>
		file.text.split("\n").flatMap((line, i) => (pattern.test(line) ? [`${file.path}:${i + 1}: ${line.trim()}`] : [])),
	);
}

const SCHEMA_NAMES = new Set(
	Object.keys((JSON.parse(snapshot) as { components: { schemas: Record<string, unknown> } }).components.schemas),
);

/** A meeting the pure parts' tests start from: a fixture, not a list the pages use. */
const FIXTURES = new Set(["dashboard/src/test-meeting.ts"]);

describe("the dashboard on the typed client", () => {
	it("reads every dashboard source", () => {
		expect(files.length).toBeGreaterThan(40);
		expect(files.map((f) => f.path)).toContain("dashboard/src/api.ts");
		expect(SCHEMA_NAMES.has("Meeting")).toBe(true);
	});

	it("calls the API only through typed methods: no request(method, path), no raw send of a path", () => {
		expect(occurrences(/\brequest\s*[(<]/)).toEqual([]);
		const untyped = files.filter((f) =>
			[...f.text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*"@meetbot\/client"/g)].some((m) =>
				(m[1] ?? "").split(",").some((name) => /^\s*(send|buildUrl|readSse)\s*$/.test(name)),
			),
		);
		expect(untyped.map((f) => f.path)).toEqual([]);
		expect(occurrences(/\bfetch\(/).filter((line) => !line.startsWith("dashboard/src/api.ts:"))).toEqual([]);
	});

	it("parses no stream of its own: the client's SSE reader is the one", () => {
		expect(occurrences(/\.getReader\(|TextDecoderStream|text\/event-stream/)).toEqual([]);
	});

	it("declares no type under a generated schema's name, other than the generated type itself", () => {
		const declared = files.flatMap((file) =>
			[...file.text.matchAll(/^\s*(?:export\s+)?(?:declare\s+)?(?:interface|type|class|enum)\s+([A-Z][A-Za-z0-9]*)\b([^\n]*)/gm)]
				.filter((m) => SCHEMA_NAMES.has(m[1] ?? ""))
				// `type X,` inside an import list names a type; it declares none.
				.filter((m) => !/^\s*(?:,|\}|$)/.test(m[2] ?? ""))
				.filter((m) => !new RegExp(`^\\s*=\\s*Schemas\\["${m[1]}"\\];`).test(m[2] ?? ""))
				.map((m) => `${file.path}: ${m[0]}`),
		);
		expect(declared).toEqual([]);
	});

	it("writes out no list of platforms or statuses: they come from src/platforms and src/meetings/statuses.ts", () => {
		const platform = new RegExp(`["'\`](${PLATFORMS.join("|")})["'\`]`);
		const pages = files.filter((f) => !FIXTURES.has(f.path));
		expect(occurrences(platform, pages)).toEqual([]);
		const status = `(?:${MEETING_STATUSES.join("|")})`;
		// Two statuses side by side in an array or a set, or joined for a query (`"idle,scheduled"`).
		const statusList = new RegExp(`["'\`]${status}["'\`]\\s*,\\s*["'\`]${status}["'\`]|["'\`]${status}(?:,${status})+["'\`]`);
		expect(occurrences(statusList, pages)).toEqual([]);
	});
});
