/**
 * Governance of workspace paths, pure. Every path a user or the agent names is normalized here
 * before it reaches the repository: relative, forward slashes, no climbing out, never into `.git`.
 * Policy paths are written only by the platform (seeding, membership); the agent is refused.
 */

export type PathCheck = { ok: true; path: string } | { ok: false; problem: string };

/** Paths only our own code writes: membership and governance files, and the ignore rules that keep uploads out of git. */
const POLICY_PREFIXES = ["policy/"];
const POLICY_FILES = [".gitignore"];
/** Uploads live in R2 and are listed by the upload route; nothing writes them through git. */
const RESERVED_PREFIXES = ["uploads/"];

/** A workspace-relative path, or why it is refused. A single leading "./" is tolerated. */
export function normalizePath(raw: string): PathCheck {
	if (typeof raw !== "string" || raw.trim() === "") return { ok: false, problem: "path is empty" };
	if (raw.includes("\\")) return { ok: false, problem: "path must use forward slashes" };
	// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused
	if (/[\u0000-\u001f\u007f]/.test(raw)) return { ok: false, problem: "path contains control characters" };
	if (raw.startsWith("/")) return { ok: false, problem: "path must be relative to the workspace" };
	const segments = raw.replace(/^\.\//, "").split("/");
	if (segments.some((s) => s === "..")) return { ok: false, problem: "path must not leave the workspace (..)" };
	const kept = segments.filter((s) => s !== "" && s !== ".");
	if (kept.length === 0) return { ok: false, problem: "path is empty" };
	if (kept.some((s) => s.toLowerCase() === ".git")) return { ok: false, problem: "path must not touch .git" };
	return { ok: true, path: kept.join("/") };
}

/** Whether a normalized path is one only the platform writes. */
export function isPolicyPath(path: string): boolean {
	return POLICY_FILES.includes(path) || POLICY_PREFIXES.some((p) => path.startsWith(p) || `${path}/` === p);
}

/**
 * Why the agent may not write `raw`, or null when it may: the path is invalid, outside the
 * workspace, a policy path, or reserved for uploads. Called before staging each write.
 */
export function writeViolation(raw: string): string | null {
	const checked = normalizePath(raw);
	if (!checked.ok) return `${raw}: ${checked.problem}`;
	if (isPolicyPath(checked.path)) return `${checked.path}: policy path, written only by the platform`;
	if (RESERVED_PREFIXES.some((p) => checked.path.startsWith(p)))
		return `${checked.path}: uploads are added by the upload route, not written`;
	return null;
}
