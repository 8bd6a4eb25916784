/**
 * Reading a workspace: its tree (work tree and uploads), a file, a line search, and the git
 * summary with the kg/ folder's findings.
 */
import { linesContaining } from "../../src/workspace/line-search";
import { validateKg } from "../../src/workspace/okf";
import { normalizePath } from "../../src/workspace/paths";
import type { GitSummary, KgFinding, SearchHit } from "../../src/workspace/workspace-types";
import type { WorkspaceContext } from "./context";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

/** Callers' limits held to a sane range: git log depth and search hits are walked in memory. */
const clampLimit = (limit: number) => Math.max(1, Math.min(Number.isFinite(limit) ? Math.floor(limit) : 50, 500));

/** Files larger than this are not scanned by `search` (they are data, not notes). */
const SEARCH_MAX_BYTES = 1_000_000;

export type ReadingHost = Pick<WorkspaceContext, "sql" | "files" | "repo">;

export class WorkspaceReading {
	constructor(private readonly ws: ReadingHost) {}

	/** Every path in the work tree and the uploads; `.git` never, other dot-paths only with `hidden`. */
	async tree(hidden: boolean): Promise<string[]> {
		const uploads = this.ws.sql.exec<{ path: string }>(`SELECT path FROM ${TABLES.uploads}`).toArray();
		const paths = [...this.ws.repo.workTreeFiles(), ...uploads.map((u) => u.path)];
		const visible = hidden ? paths : paths.filter((path) => !path.split("/").some((segment) => segment.startsWith(".")));
		return [...new Set(visible)].sort();
	}

	/** A file's text, or null when there is no such file. The path is already checked by the caller. */
	async read(path: string): Promise<{ path: string; content: string } | null> {
		const checked = normalizePath(path);
		if (!checked.ok) return null;
		const content = await this.ws.repo.readText(checked.path);
		return content === null ? null : { path: checked.path, content };
	}

	/** Lines that contain `query` (case-insensitive), at most `limit`. */
	async search(query: string, limit: number): Promise<SearchHit[]> {
		const needle = query.toLowerCase();
		limit = clampLimit(limit);
		const hits: SearchHit[] = [];
		if (!needle) return hits;
		for (const path of this.ws.repo.workTreeFiles()) {
			if ((await this.ws.files.lstat(`/${path}`)).size > SEARCH_MAX_BYTES) continue;
			const text = await this.ws.repo.readText(path);
			if (text === null || text.includes("\u0000")) continue;
			hits.push(...linesContaining(path, text, needle, limit - hits.length));
			if (hits.length >= limit) break;
		}
		return hits;
	}

	/** Branch, uncommitted changes, the newest commits (kind relative to `viewerEmail`) and kg/ findings. */
	async summary(viewerEmail: string, limit: number): Promise<GitSummary> {
		const viewer = viewerEmail.trim().toLowerCase();
		const history = await this.ws.repo.history(clampLimit(limit));
		return {
			branch: await this.ws.repo.branch(),
			changes: await this.ws.repo.uncommitted(),
			commits: history.map(({ email, ...commit }) => ({ ...commit, kind: email.trim().toLowerCase() === viewer ? "you" : "member" })),
			kg_findings: await kgFindings(this.ws),
		};
	}
}

/** The kg/ folder's findings (src/workspace/okf.ts), after a read or a commit. */
export async function kgFindings(ws: Pick<WorkspaceContext, "repo">): Promise<KgFinding[]> {
	const files = [];
	for (const path of ws.repo.workTreeFiles().filter((p) => p.startsWith("kg/"))) {
		files.push({ path, content: (await ws.repo.readText(path)) ?? "" });
	}
	return validateKg(files);
}
