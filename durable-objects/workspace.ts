import { DurableObject } from "cloudflare:workers";
import type { Env } from "../src/env";
import type {
	CommitAuthor,
	CommitOutcome,
	CommitRequest,
	GitSummary,
	InitOutcome,
	SearchHit,
	UploadRecord,
} from "../src/workspace/workspace-types";

const notYet = (what: string) => new Error(`SKELETON: Workspace.${what} is not built yet`);

/**
 * One per workspace (named by src/workspace/workspace-names.ts): a real git repository kept in
 * the object's SQLite storage (isomorphic-git over a chunked file system), plus the uploads it
 * lists from R2. Git's CPU and memory spikes stay here, out of the agent's and the meeting's objects.
 */
export class Workspace extends DurableObject<Env> {
	/** Seeds the workspace (committed as `seed`, by `author`) unless it already has a commit. */
	async init(_name: string, _author: CommitAuthor): Promise<InitOutcome> {
		throw notYet("init");
	}

	/** Every path in the work tree and the uploads; `.git` never, other dot-paths only with `hidden`. */
	async tree(_hidden: boolean): Promise<string[]> {
		throw notYet("tree");
	}

	/** A file's text, or null when there is no such file. The path is already checked by the caller. */
	async read(_path: string): Promise<{ path: string; content: string } | null> {
		throw notYet("read");
	}

	/** Lines that contain `query` (case-insensitive), at most `limit`. */
	async search(_query: string, _limit: number): Promise<SearchHit[]> {
		throw notYet("search");
	}

	/** Branch, uncommitted changes, the newest commits (kind relative to `viewerEmail`) and kg/ findings. */
	async summary(_viewerEmail: string, _limit: number): Promise<GitSummary> {
		throw notYet("summary");
	}

	/**
	 * Writes and removes files and commits them as one commit. An agent's write to a policy path
	 * or outside the workspace refuses the whole request. Seeds first when the workspace is empty.
	 */
	async commit(_request: CommitRequest): Promise<CommitOutcome> {
		throw notYet("commit");
	}

	/** Uploads the route stored in R2: listed in the tree from now on, kept out of git objects. */
	async addUploads(_records: UploadRecord[]): Promise<void> {
		throw notYet("addUploads");
	}

	/** SKELETON (h-wire): replaces this workspace's content with a shallow clone of an external repository. */
	async cloneFrom(_source: { repo: string; ref: string; token: string | null }): Promise<{ ok: true } | { ok: false; detail: string }> {
		throw notYet("cloneFrom");
	}

	/** SKELETON (h-wire): git smart HTTP, read-only (`info/refs?service=git-upload-pack`, `git-upload-pack`). */
	override async fetch(_request: Request): Promise<Response> {
		return new Response("not built yet", { status: 404 });
	}
}
