import git from "isomorphic-git";
import type { CommitAuthor, CommitInfo } from "../../src/workspace/workspace-types";
import type { SqlFs } from "./fs";

/** The work tree's root in the object's file system; the repository is `/.git` under it. */
export const WORK_DIR = "/";
export const BRANCH = "main";

/** One file the caller wants written (text) or removed (null), path already normalized. */
export interface StagedChange {
	path: string;
	content: string | null;
}

const decoder = new TextDecoder();

/**
 * The git side of a workspace: isomorphic-git over the object's SqlFs, with the work tree at
 * "/". Everything here is plumbing; governance and seeding are the object's.
 */
export class WorkspaceRepo {
	/** isomorphic-git's per-operation cache: reused within one call, never across requests. */
	private cache: object = {};

	constructor(readonly fs: SqlFs) {}

	/** What isomorphic-git needs for every call on this repository (also for the git export). */
	get options() {
		return { fs: this.fs.gitFs, dir: WORK_DIR, cache: this.cache };
	}

	/** The commit HEAD points at, or null before the first commit. */
	async head(): Promise<string | null> {
		try {
			return await git.resolveRef({ ...this.options, ref: "HEAD" });
		} catch {
			return null;
		}
	}

	async ensureRepository(): Promise<void> {
		try {
			await this.fs.lstat("/.git/HEAD");
		} catch {
			await git.init({ ...this.options, defaultBranch: BRANCH });
		}
	}

	/**
	 * Applies the changes to the work tree and index and commits them as one commit. Returns the
	 * paths that really changed and the new sha, or sha null when none did (nothing committed).
	 */
	async commitChanges(changes: StagedChange[], message: string, author: CommitAuthor): Promise<{ sha: string | null; files: string[] }> {
		this.cache = {};
		await this.ensureRepository();
		const changed: string[] = [];
		for (const change of changes) {
			const current = await this.readText(change.path);
			if (change.content === null) {
				if (current === null) continue;
				await this.fs.removeFileDeep(`/${change.path}`);
				await git.remove({ ...this.options, filepath: change.path });
			} else {
				if (current === change.content) continue;
				await this.fs.writeFileDeep(`/${change.path}`, change.content);
				await git.add({ ...this.options, filepath: change.path });
			}
			changed.push(change.path);
		}
		const head = await this.head();
		if (changed.length === 0 && head !== null) return { sha: null, files: [] };
		const sha = await git.commit({ ...this.options, message, author: { name: author.name, email: author.email } });
		return { sha, files: [...new Set(changed)].sort() };
	}

	/**
	 * Why `path` cannot be written as a file, or null: it is a directory, or a file sits where
	 * one of its directories would go. Checked for every change before any is applied.
	 */
	async shapeProblem(path: string): Promise<string | null> {
		const parts = path.split("/");
		for (let i = 1; i <= parts.length; i++) {
			const prefix = parts.slice(0, i).join("/");
			const stat = await this.fs.lstat(`/${prefix}`).catch(() => null);
			if (!stat) return null;
			if (i < parts.length && !stat.isDirectory()) return `${path}: ${prefix} is a file, not a directory`;
			if (i === parts.length && stat.isDirectory()) return `${path}: is a directory`;
		}
		return null;
	}

	/** A work-tree file as text, or null when absent (or a directory). */
	async readText(path: string): Promise<string | null> {
		try {
			const stat = await this.fs.lstat(`/${path}`);
			if (!stat.isFile()) return null;
			return (await this.fs.readFile(`/${path}`, "utf8")) as string;
		} catch {
			return null;
		}
	}

	/** Every work-tree file path, `.git` excluded. */
	workTreeFiles(): string[] {
		return this.fs.filesUnder(WORK_DIR).filter((path) => path !== ".git" && !path.startsWith(".git/"));
	}

	/** The checked-out branch: `main`, or the ref an attached repository was cloned at. */
	async branch(): Promise<string> {
		return (await git.currentBranch({ ...this.options, fullname: false }).catch(() => undefined)) ?? BRANCH;
	}

	/** The newest commits, each with the paths it changed against its first parent. */
	async history(limit: number): Promise<(Omit<CommitInfo, "kind"> & { email: string })[]> {
		if ((await this.head()) === null) return [];
		this.cache = {};
		// HEAD, not BRANCH: an attached repository's branch is the ref it was cloned at.
		const entries = await git.log({ ...this.options, ref: "HEAD", depth: limit });
		const out: (Omit<CommitInfo, "kind"> & { email: string })[] = [];
		for (const entry of entries) {
			const { commit } = entry;
			const parent = commit.parent[0];
			// A shallow clone (an attached repository) names a parent it does not have: all its files are new.
			const parentTree = parent
				? await git.readCommit({ ...this.options, oid: parent }).then(
						({ commit }) => commit.tree,
						() => null,
					)
				: null;
			out.push({
				sha: entry.oid,
				msg: commit.message.trim(),
				when: new Date(commit.author.timestamp * 1000).toISOString(),
				author: commit.author.name,
				email: commit.author.email,
				files: await this.changedPaths(parentTree, commit.tree, ""),
				ts: commit.author.timestamp,
			});
		}
		return out;
	}

	/** Paths whose blobs differ between two trees; equal subtrees are skipped by their oid. */
	private async changedPaths(before: string | null, after: string | null, prefix: string): Promise<string[]> {
		if (before === after) return [];
		const read = async (oid: string | null) =>
			new Map((oid ? (await git.readTree({ ...this.options, oid })).tree : []).map((e) => [e.path, e]));
		const [a, b] = await Promise.all([read(before), read(after)]);
		const names = [...new Set([...a.keys(), ...b.keys()])].sort();
		const out: string[] = [];
		for (const name of names) {
			const x = a.get(name);
			const y = b.get(name);
			if (x?.oid === y?.oid && x?.mode === y?.mode) continue;
			const path = `${prefix}${name}`;
			const xTree = x?.type === "tree" ? x.oid : null;
			const yTree = y?.type === "tree" ? y.oid : null;
			if (xTree || yTree) out.push(...(await this.changedPaths(xTree, yTree, `${path}/`)));
			if ((x && x.type !== "tree") || (y && y.type !== "tree")) out.push(path);
		}
		return out;
	}

	/** Work-tree paths that differ from the last commit (ignored paths such as uploads excluded). */
	async uncommitted(): Promise<string[]> {
		if ((await this.head()) === null) return [];
		this.cache = {};
		const matrix = await git.statusMatrix({ ...this.options });
		return matrix.filter(([, headState, workdir]) => headState !== workdir).map(([path]) => path);
	}

	/** A blob's text at HEAD (for callers that need the committed rather than the work-tree state). */
	async committedText(path: string): Promise<string | null> {
		const head = await this.head();
		if (!head) return null;
		try {
			const { blob } = await git.readBlob({ ...this.options, oid: head, filepath: path });
			return decoder.decode(blob);
		} catch {
			return null;
		}
	}
}
