/// <reference types="vite/client" />

/**
 * The repository's import graph as the structure tests read it: every product TypeScript and
 * JavaScript file (tests, generated files and built bundles aside) with its relative imports, each
 * marked as a value or a type import, resolved to the file it names. Read from the source text at
 * build time, as `test/unit/docs/layers.test.ts` reads it.
 */
/** The repository path `specifier` names from `from`, without resolving extensions. */
function join(from: string, specifier: string): string {
	const parts = from.split("/").slice(0, -1);
	for (const part of specifier.split("/")) {
		if (part === "..") parts.pop();
		else if (part !== ".") parts.push(part);
	}
	return parts.join("/");
}

const sources = import.meta.glob<string>(
	[
		"../../../{src,durable-objects,bot-host,dashboard,scripts,examples}/**/*.{ts,tsx,mts,js,mjs,cjs}",
		"../../../packages/client/src/**/*.ts",
		"!**/node_modules/**",
		"!**/dist/**",
		"!**/*.test.{ts,tsx}",
		"!**/*.min.js",
		"!**/*.d.ts",
		"!../../../bot-host/test/**",
		"!../../../examples/*/test/**",
		"!../../../packages/client/src/schema.ts",
	],
	{ query: "?raw", import: "default", eager: true },
);

/** A glob key (relative to this folder) as a repository path. */
const repoPath = (key: string) => join("test/unit/structure/import-graph.ts", key);

/** Every file of the repository's own folders, by path (names only: nothing is loaded), to resolve imports against. */
const existing = new Set(
	Object.keys(
		import.meta.glob([
			"../../../{src,durable-objects,bot-host,dashboard,scripts,examples,packages,test,migrations}/**/*",
			"../../../package.json",
			"!**/node_modules/**",
			"!**/dist/**",
		]),
	).map(repoPath),
);

export interface SourceFile {
	path: string;
	text: string;
}

export interface ImportEdge {
	from: string;
	/** The file imported, or the path as written (without a file behind it) when none exists. */
	to: string;
	/** `type`: `import type`, `export type`, every name marked `type`, or an inline `import("…")` type. */
	kind: "value" | "type";
	resolved: boolean;
}

export const productFiles: SourceFile[] = Object.entries(sources).map(([key, text]) => ({ path: repoPath(key), text }));

const EXTENSIONS = ["", ".ts", ".tsx", ".mts", ".js", ".mjs", "/index.ts", "/index.tsx", "/index.js"];

function resolve(from: string, specifier: string): { to: string; resolved: boolean } {
	const base = join(from, specifier.replace(/\?.*$/, ""));
	// NodeNext spells a .ts file's import with .js (packages/client).
	const candidates = [...EXTENSIONS.map((ext) => base + ext), base.replace(/\.js$/, ".ts")];
	const to = candidates.find((candidate) => existing.has(candidate));
	return to ? { to, resolved: true } : { to: base, resolved: false };
}

/** `{ type A, type B }`: every name imported is a type. */
const allTypes = (clause: string) => {
	const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
	const names =
		braces?.[1]
			?.split(",")
			.map((name) => name.trim())
			.filter(Boolean) ?? [];
	return names.length > 0 && names.every((name) => name.startsWith("type "));
};

// `import … from "…"`, `export … from "…"` (at a line's start, so prose in comments does not count), `import "…"`, `import("…")`.
const STATIC = /^[ \t]*(import|export)[ \t]+(type[ \t]+)?([^;]*?)[ \t\n]*from[ \t]*["'](\.{1,2}\/[^"']+)["']/gm;
const BARE = /^[ \t]*import[ \t]*["'](\.{1,2}\/[^"']+)["']/gm;
const DYNAMIC = /(await[ \t]+)?\bimport\([ \t]*["'](\.{1,2}\/[^"']+)["'][ \t]*\)/g;

export function importsOf(file: SourceFile): ImportEdge[] {
	const edge = (specifier: string, kind: ImportEdge["kind"]): ImportEdge => ({ from: file.path, kind, ...resolve(file.path, specifier) });
	return [
		...[...file.text.matchAll(STATIC)].map((m) => edge(m[4] ?? "", m[2] || allTypes(m[3] ?? "") ? "type" : "value")),
		...[...file.text.matchAll(BARE)].map((m) => edge(m[1] ?? "", "value")),
		// An awaited import() loads a module; any other is a type written inline (`import("../x").X`).
		...[...file.text.matchAll(DYNAMIC)].map((m) => edge(m[2] ?? "", m[1] ? "value" : "type")),
	];
}

/** Package imports (`zod`, `node:fs`, `cloudflare:workers`), as written. */
export function packagesOf(file: SourceFile): string[] {
	return [
		...file.text.matchAll(
			/^[ \t]*(?:import|export)[ \t][^;]*?from[ \t]*["']([^."'][^"']*)["']|^[ \t]*import[ \t]*["']([^."'][^"']*)["']/gm,
		),
	].map((m) => m[1] ?? m[2] ?? "");
}

export const edges: ImportEdge[] = productFiles.flatMap(importsOf);

/** The import cycles among `files` (Tarjan's strongly connected components of more than one file, or a file importing itself). */
export function cycles(nodes: string[], edgeList: ImportEdge[]): string[][] {
	const next = new Map<string, string[]>(nodes.map((n) => [n, []]));
	for (const e of edgeList) next.get(e.from)?.push(e.to);
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	let counter = 0;
	const visit = (node: string) => {
		index.set(node, counter);
		low.set(node, counter);
		counter++;
		stack.push(node);
		onStack.add(node);
		for (const to of next.get(node) ?? []) {
			if (!next.has(to)) continue;
			if (!index.has(to)) {
				visit(to);
				low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
			} else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
		}
		if (low.get(node) === index.get(node)) {
			const component: string[] = [];
			let member: string | undefined;
			do {
				member = stack.pop();
				if (member === undefined) break;
				onStack.delete(member);
				component.push(member);
			} while (member !== node);
			if (component.length > 1 || next.get(node)?.includes(node)) found.push(component.sort());
		}
	};
	for (const node of nodes) if (!index.has(node)) visit(node);
	return found;
}
