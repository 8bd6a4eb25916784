/**
 * What the bot host's image and manifests are checked against: the files bot-host/main.ts
 * reaches through relative imports, the packages they import, and the settings they read.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../../..");
export const HOST_ENTRY = "bot-host/main.ts";

const IMPORT = /(?:^|[\s;])(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"|import\(\s*"([^"]+)"\s*\)|^import\s+"([^"]+)"/gm;

/** Every specifier a module imports (static, re-exports, and dynamic with a literal), types included. */
export function importsOf(source: string): string[] {
	return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3] ?? "").filter(Boolean);
}

/** Repo-relative paths reachable from the entry, and the bare packages they import. */
export function reachableFrom(entry = HOST_ENTRY): { files: string[]; packages: string[] } {
	const files = new Set<string>();
	const packages = new Set<string>();
	const queue = [entry];
	for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
		if (files.has(file)) continue;
		files.add(file);
		const source = readFileSync(path.join(REPO, file), "utf8");
		for (const specifier of importsOf(source)) {
			if (specifier.startsWith(".")) {
				const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
				if (!existsSync(path.join(REPO, target))) throw new Error(`${file} imports ${specifier}, which does not exist`);
				queue.push(target);
			} else if (!specifier.startsWith("node:")) {
				// `@scope/name/sub` → `@scope/name`, `name/sub` → `name`.
				const parts = specifier.split("/");
				packages.add(specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier));
			}
		}
	}
	return { files: [...files].sort(), packages: [...packages].sort() };
}

/** Environment settings a set of files reads: `env.NAME`, `env["NAME"]`, and the named readers of main.ts (`whole("NAME", …)`). */
export function settingsRead(files: string[]): Set<string> {
	const names = new Set<string>();
	for (const file of files) {
		const source = readFileSync(path.join(REPO, file), "utf8");
		for (const m of source.matchAll(/\benv\.([A-Z][A-Z0-9_]*)|\benv\[\s*"([A-Z][A-Z0-9_]*)"\s*\]/g)) names.add(m[1] ?? m[2] ?? "");
		for (const m of source.matchAll(/\b(?:whole|positiveNumber)\(\s*"([A-Z][A-Z0-9_]*)"/g)) names.add(m[1] ?? "");
	}
	names.delete("");
	return names;
}
