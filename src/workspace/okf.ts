/**
 * The Open Knowledge Format v0.1 rules we hold `kg/` to (docs/workspace.md), pure. A concept file
 * is every `kg/**.md` except the reserved `index.md` and `log.md`; it must open with frontmatter
 * carrying a non-empty `type`.
 */
import type { KgFinding } from "./workspace-types";

export interface Frontmatter {
	/** `key: value` pairs; values unquoted and trimmed. */
	data: Record<string, string>;
	/** The text after the closing `---`. */
	body: string;
}

/**
 * The frontmatter block at the very start of `text` (`---` lines around `key: value` lines), or
 * null when there is none. Deliberately small: flat scalars are all our seed, routine and meeting
 * files use; other lines (lists, nesting) are kept out of `data` rather than misread.
 */
export function parseFrontmatter(text: string): Frontmatter | null {
	const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
	if (lines[0]?.trim() !== "---") return null;
	const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
	if (end < 0) return null;
	const data: Record<string, string> = {};
	for (const line of lines.slice(1, end)) {
		const match = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
		if (!match?.[1]) continue;
		data[match[1]] = unquote((match[2] ?? "").trim());
	}
	return { data, body: lines.slice(end + 1).join("\n") };
}

function unquote(value: string): string {
	if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
		return value.slice(1, -1);
	}
	return value;
}

/** Renders flat frontmatter and a body, the inverse of parseFrontmatter for the values we write. */
export function renderFrontmatter(data: Record<string, string | number | boolean>, body: string): string {
	const lines = Object.entries(data).map(([key, value]) => `${key}: ${value}`);
	return `---\n${lines.join("\n")}\n---\n${body}`;
}

const RESERVED = new Set(["index.md", "log.md"]);

/** Whether the OKF rules apply to `path` (a concept file of the bundle). */
export function isConceptFile(path: string): boolean {
	if (!path.startsWith("kg/") || !path.endsWith(".md")) return false;
	const name = path.slice(path.lastIndexOf("/") + 1);
	return !RESERVED.has(name);
}

/** One finding per concept file that is not conformant, in path order. */
export function validateKg(files: { path: string; content: string }[]): KgFinding[] {
	const findings: KgFinding[] = [];
	for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
		if (!isConceptFile(file.path)) continue;
		const front = parseFrontmatter(file.content);
		if (!front) findings.push({ path: file.path, problem: "no frontmatter: a concept file starts with --- and a `type`" });
		else if (!front.data.type?.trim()) findings.push({ path: file.path, problem: "frontmatter has no non-empty `type`" });
	}
	return findings;
}
