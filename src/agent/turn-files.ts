import type { Env } from "../env";
import { workspaceObject } from "../objects";
import { linesContaining } from "../workspace/line-search";
import { normalizePath, writeViolation } from "../workspace/paths";
import { uploadForModel } from "../workspace/uploads";
import { homeWorkspace } from "../workspace/workspace-names";
import type { FileChange, SearchHit } from "../workspace/workspace-types";
import { isOwnFile, isSharedWorkspace } from "./taint";

/** The most search hits a tool hands back to the model. */
export const MAX_SEARCH_HITS = 50;

export type StageOutcome = { ok: true } | { ok: false; violations: string[] } | { ok: false; missing: string };

/**
 * One turn's file changes over a workspace. Writes are staged here and land in git only when
 * the turn ends (one commit per turn), so a turn that fails half-way leaves the workspace as it
 * was. Reads, listings and searches see the staged content first, so the model reads its own
 * writes. A write governance refuses is never staged.
 */
export class TurnFiles {
	/** Path → new content, or null for a removal. */
	private readonly staged = new Map<string, string | null>();

	constructor(
		private readonly env: Env,
		/** The workspace's object name (src/workspace/workspace-names.ts). */
		readonly workspace: string,
		/** The user whose turn this is: files another user wrote are their words, not this user's. */
		readonly userId: number,
		/** Told of every refused write, so the turn's stream carries a `rejected` frame. */
		private readonly onRejected: (violations: string[]) => void,
	) {}

	private get object() {
		return workspaceObject(this.env, this.workspace);
	}

	/** `path` is normalized already (src/workspace/paths.ts). */
	async read(path: string): Promise<string | null> {
		if (this.staged.has(path)) return this.staged.get(path) ?? null;
		return (await this.object.read(path))?.content ?? null;
	}

	/** An upload (`uploads/…`, read-only, never staged) as the model reads it: the start of its text, or what a binary file is. */
	async readUpload(path: string, maxChars: number) {
		const upload = await this.object.upload(path);
		return upload ? uploadForModel(this.env.WORKSPACE_FILES, this.workspace, upload, maxChars) : null;
	}

	async list(): Promise<string[]> {
		const files = new Set(await this.object.tree(false));
		for (const [path, content] of this.staged) {
			if (content === null) files.delete(path);
			else files.add(path);
		}
		return [...files].sort();
	}

	async search(query: string, limit = MAX_SEARCH_HITS): Promise<SearchHit[]> {
		const needle = query.toLowerCase();
		// Hits in staged files come from the staged text; the stored version of those files is stale.
		const stored = (await this.object.search(query, limit)).filter((hit) => !this.staged.has(hit.path));
		const fresh: SearchHit[] = [];
		for (const [path, content] of this.staged) {
			if (content !== null) fresh.push(...linesContaining(path, content, needle, limit - fresh.length));
		}
		return [...fresh, ...stored].slice(0, limit);
	}

	write(path: string, content: string): StageOutcome {
		return this.stage(path, content);
	}

	async remove(path: string): Promise<StageOutcome> {
		const violation = writeViolation(path);
		if (violation) return this.refuse([violation]);
		const checked = normalizePath(path);
		if (!checked.ok || (await this.read(checked.path)) === null) return { ok: false, missing: path };
		return this.stage(path, null);
	}

	private stage(path: string, content: string | null): StageOutcome {
		const violation = writeViolation(path);
		if (violation) return this.refuse([violation]);
		// Staged under its normal form, so `./a.md` and `a.md` are one file.
		const checked = normalizePath(path);
		if (checked.ok) this.staged.set(checked.path, content);
		return { ok: true };
	}

	private refuse(violations: string[]): StageOutcome {
		this.onRejected(violations);
		return { ok: false, violations };
	}

	/** Whether this is the user's home workspace, where no one else writes. */
	get isHome(): boolean {
		return this.workspace === homeWorkspace(this.userId);
	}

	/**
	 * Whether any of these files (normalized paths, or uploads) carries text other people wrote
	 * (src/agent/taint.ts). What this turn staged is its own; an upload is the user's own unless
	 * the workspace is shared.
	 */
	async anyForeign(paths: string[]): Promise<boolean> {
		const stored = paths.filter((path) => !this.staged.has(path));
		if (stored.some((path) => path.startsWith("uploads/")) && isSharedWorkspace(this.workspace)) return true;
		const files = stored.filter((path) => !path.startsWith("uploads/"));
		if (files.length === 0) return false;
		const writers = await this.object.writers(files);
		return files.some((path) => !isOwnFile(this.workspace, this.userId, path, writers[path]));
	}

	/** What the turn changed, for its one commit. */
	changes(): FileChange[] {
		return [...this.staged].map(([path, content]) => ({ path, content }));
	}
}
