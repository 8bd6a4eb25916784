import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { outboundPolicy } from "../../src/outbound/url-guard";
import type {
	AddUploadsOutcome,
	CommitAuthor,
	CommitOutcome,
	CommitRequest,
	FileWriter,
	GitSummary,
	InitOutcome,
	RoutineAuthors,
	SearchHit,
	StoredUpload,
	UploadUsage,
} from "../../src/workspace/workspace-types";
import { type CloneOutcome, type CloneSource, cloneRepository } from "./clone";
import { cloneLimits } from "./clone-limits";
import { WorkspaceCommits } from "./commits";
import { type WorkspaceContext, workspaceContextOf } from "./context";
import { serveGitExport } from "./export";
import { WorkspaceReading } from "./reading";
import { WORKSPACE_STORAGE } from "./storage";
import { WorkspaceUploads } from "./uploads";

/** The RPC surface: what Workers and the agent's object call on a workspace's stub (fetch is the runtime's git export). */
export const WORKSPACE_RPC = [
	"init",
	"tree",
	"read",
	"search",
	"summary",
	"commit",
	"routineAuthors",
	"writers",
	"uploadUsage",
	"addUploads",
	"upload",
	"removeUpload",
	"cloneFrom",
] as const;

/**
 * One per workspace (named by src/workspace/workspace-names.ts): a real git repository kept in
 * the object's SQLite storage (isomorphic-git over a chunked file system, durable-objects/workspace/fs.ts),
 * plus the uploads it lists from R2. Git's CPU and memory spikes stay here, out of the agent's and the meeting's objects.
 * Reading is reading.ts's, writing commits.ts's, the uploads' list uploads.ts's.
 */
export class Workspace extends DurableObject<Env> {
	readonly #ws: WorkspaceContext = workspaceContextOf(this.ctx.storage);
	/** The repository and its file system, as instance fields (never on the prototype): tests reach them in the object. */
	private readonly files = this.#ws.files;
	private readonly repo = this.#ws.repo;
	readonly #reading = new WorkspaceReading(this.#ws);
	readonly #commits = new WorkspaceCommits(this.#ws);
	readonly #uploads = new WorkspaceUploads(this.#ws);

	/** Seeds the workspace (committed as `seed`, by `author`) unless it already has a commit. */
	init(name: string, author: CommitAuthor): Promise<InitOutcome> {
		return this.#commits.init(name, author);
	}

	/** Every path in the work tree and the uploads; `.git` never, other dot-paths only with `hidden`. */
	tree(hidden: boolean): Promise<string[]> {
		return this.#reading.tree(hidden);
	}

	/** A file's text, or null when there is no such file. The path is already checked by the caller. */
	read(path: string): Promise<{ path: string; content: string } | null> {
		return this.#reading.read(path);
	}

	/** Lines that contain `query` (case-insensitive), at most `limit`. */
	search(query: string, limit: number): Promise<SearchHit[]> {
		return this.#reading.search(query, limit);
	}

	/** Branch, uncommitted changes, the newest commits (kind relative to `viewerEmail`) and kg/ findings. */
	summary(viewerEmail: string, limit: number): Promise<GitSummary> {
		return this.#reading.summary(viewerEmail, limit);
	}

	/** Writes and removes files and commits them as one commit; an agent's write to a policy path refuses the whole request. */
	commit(request: CommitRequest): Promise<CommitOutcome> {
		return this.#commits.commit(request);
	}

	/** The recorded writer of each of these paths that has one. */
	writers(paths: string[]): Promise<Record<string, FileWriter>> {
		return this.#commits.writers(paths);
	}

	/** Who last wrote each routine file, as recorded by commits (durable-objects/agent-user/routine-files.ts reads it). */
	routineAuthors(): Promise<RoutineAuthors> {
		return this.#commits.routineAuthors();
	}

	/** What this workspace's uploads take: the user's upload quota counts it (src/routes/agent-workspace.ts). */
	async uploadUsage(): Promise<UploadUsage> {
		return this.#uploads.usage();
	}

	/** Lists uploads the route stored in R2, all or none: none when they would take the workspace past `allowance`. */
	addUploads(uploads: StoredUpload[], allowance: UploadUsage): Promise<AddUploadsOutcome> {
		return this.#uploads.addUploads(uploads, allowance);
	}

	/** One listed upload, or null. */
	upload(path: string): StoredUpload | null {
		return this.#uploads.upload(path);
	}

	/** Takes an upload off the list; its record (the route then deletes its object), or null when there was none. */
	removeUpload(path: string): Promise<StoredUpload | null> {
		return this.#uploads.removeUpload(path);
	}

	/**
	 * Replaces this workspace's content with a shallow clone of an external repository
	 * (durable-objects/workspace/clone.ts): guarded, within the deployment's clone limits, the token only in `onAuth`.
	 */
	cloneFrom(source: CloneSource): Promise<CloneOutcome> {
		return this.#ws.writing.run(() => {
			// The clone replaces every file; its routine files were written by no user of this service, so they are nobody's routines.
			this.#ws.sql.exec(`DELETE FROM ${WORKSPACE_STORAGE.tables.routineAuthors}`);
			this.#ws.sql.exec(`DELETE FROM ${WORKSPACE_STORAGE.tables.fileWriters}`);
			const options = { ...this.repo.options, cache: {}, empty: () => this.files.clear() };
			return cloneRepository(options, source, outboundPolicy(this.env), cloneLimits(this.env));
		});
	}

	/** git smart HTTP, read-only (`info/refs?service=git-upload-pack`, `git-upload-pack`): durable-objects/workspace/export.ts. */
	override fetch(request: Request): Promise<Response> {
		return serveGitExport(request, { ...this.repo.options, cache: {} });
	}
}
