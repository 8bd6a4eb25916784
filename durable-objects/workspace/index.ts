import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../src/env";
import { outboundPolicy } from "../../src/outbound/url-guard";
import { linesContaining } from "../../src/workspace/line-search";
import { validateKg } from "../../src/workspace/okf";
import { normalizePath, writeViolation } from "../../src/workspace/paths";
import { SEED_MESSAGE, seedFiles } from "../../src/workspace/seed";
import type {
	AddUploadsOutcome,
	CommitAuthor,
	CommitOutcome,
	CommitRequest,
	FileWriter,
	GitSummary,
	InitOutcome,
	KgFinding,
	RoutineAuthors,
	SearchHit,
	StoredUpload,
	UploadUsage,
} from "../../src/workspace/workspace-types";
import { SerialQueue } from "../shared/serial-queue";
import { addMissingColumns } from "../shared/sql-schema";
import { type CloneOutcome, type CloneSource, cloneRepository } from "./clone";
import { cloneLimits } from "./clone-limits";
import { serveGitExport } from "./export";
import { SqlFs } from "./fs";
import { type StagedChange, WorkspaceRepo } from "./git";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

/** Callers' limits held to a sane range: git log depth and search hits are walked in memory. */
const clampLimit = (limit: number) => Math.max(1, Math.min(Number.isFinite(limit) ? Math.floor(limit) : 50, 500));

/** Files larger than this are not scanned by `search` (they are data, not notes). */
const SEARCH_MAX_BYTES = 1_000_000;

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
 */
export class Workspace extends DurableObject<Env> {
	private readonly files: SqlFs;
	private readonly repo: WorkspaceRepo;
	/** Writes one at a time: git's index and refs must not interleave across awaits. */
	private readonly writing = new SerialQueue();

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.files = new SqlFs(ctx.storage.sql);
		this.repo = new WorkspaceRepo(this.files);
		ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
		ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.uploads} (path TEXT PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL)`);
		addMissingColumns(ctx.storage.sql, TABLES.uploads, { key: "TEXT", content_type: "TEXT", text: "INTEGER" });
		// Who wrote each routine file: in a shared workspace, a member's file must never become another member's routine.
		ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.routineAuthors} (path TEXT PRIMARY KEY, user_id INTEGER NOT NULL)`);
		// Who wrote each file: a turn that reads a file another member wrote has read their words (src/agent/taint.ts).
		ctx.storage.sql.exec(
			`CREATE TABLE IF NOT EXISTS ${TABLES.fileWriters} (path TEXT PRIMARY KEY, user_id INTEGER NOT NULL, tainted INTEGER NOT NULL)`,
		);
	}

	/** Seeds the workspace (committed as `seed`, by `author`) unless it already has a commit. */
	async init(name: string, author: CommitAuthor): Promise<InitOutcome> {
		return this.writing.run(async () => {
			this.ctx.storage.sql.exec(`INSERT OR IGNORE INTO ${TABLES.meta} (key, value) VALUES ('name', ?)`, name);
			if ((await this.repo.head()) !== null) return { workspace: name, seeded: false, already_initialized: true };
			await this.#seed(author);
			return { workspace: name, seeded: true, already_initialized: false };
		});
	}

	async #seed(author: CommitAuthor): Promise<void> {
		await this.repo.commitChanges(seedFiles(), SEED_MESSAGE, author);
	}

	/** Every path in the work tree and the uploads; `.git` never, other dot-paths only with `hidden`. */
	async tree(hidden: boolean): Promise<string[]> {
		const uploads = this.ctx.storage.sql.exec<{ path: string }>(`SELECT path FROM ${TABLES.uploads}`).toArray();
		const paths = [...this.repo.workTreeFiles(), ...uploads.map((u) => u.path)];
		const visible = hidden ? paths : paths.filter((path) => !path.split("/").some((segment) => segment.startsWith(".")));
		return [...new Set(visible)].sort();
	}

	/** A file's text, or null when there is no such file. The path is already checked by the caller. */
	async read(path: string): Promise<{ path: string; content: string } | null> {
		const checked = normalizePath(path);
		if (!checked.ok) return null;
		const content = await this.repo.readText(checked.path);
		return content === null ? null : { path: checked.path, content };
	}

	/** Lines that contain `query` (case-insensitive), at most `limit`. */
	async search(query: string, limit: number): Promise<SearchHit[]> {
		const needle = query.toLowerCase();
		limit = clampLimit(limit);
		const hits: SearchHit[] = [];
		if (!needle) return hits;
		for (const path of this.repo.workTreeFiles()) {
			if ((await this.files.lstat(`/${path}`)).size > SEARCH_MAX_BYTES) continue;
			const text = await this.repo.readText(path);
			if (text === null || text.includes("\u0000")) continue;
			hits.push(...linesContaining(path, text, needle, limit - hits.length));
			if (hits.length >= limit) break;
		}
		return hits;
	}

	/** Branch, uncommitted changes, the newest commits (kind relative to `viewerEmail`) and kg/ findings. */
	async summary(viewerEmail: string, limit: number): Promise<GitSummary> {
		const viewer = viewerEmail.trim().toLowerCase();
		const history = await this.repo.history(clampLimit(limit));
		return {
			branch: await this.repo.branch(),
			changes: await this.repo.uncommitted(),
			commits: history.map(({ email, ...commit }) => ({ ...commit, kind: email.trim().toLowerCase() === viewer ? "you" : "member" })),
			kg_findings: await this.#kgFindings(),
		};
	}

	async #kgFindings(): Promise<KgFinding[]> {
		const files = [];
		for (const path of this.repo.workTreeFiles().filter((p) => p.startsWith("kg/"))) {
			files.push({ path, content: (await this.repo.readText(path)) ?? "" });
		}
		return validateKg(files);
	}

	/**
	 * Writes and removes files and commits them as one commit. An agent's write to a policy path
	 * or outside the workspace refuses the whole request. Seeds first when the workspace is empty.
	 */
	async commit(request: CommitRequest): Promise<CommitOutcome> {
		const violations: string[] = [];
		const staged: StagedChange[] = [];
		for (const change of request.changes) {
			const checked = normalizePath(change.path);
			if (!checked.ok) {
				violations.push(`${change.path}: ${checked.problem}`);
				continue;
			}
			if (request.by === "agent") {
				const violation = writeViolation(checked.path);
				if (violation) violations.push(violation);
			}
			staged.push({ path: checked.path, content: change.content });
		}
		if (violations.length) return { ok: false, violations };
		return this.writing.run(async (): Promise<CommitOutcome> => {
			if ((await this.repo.head()) === null) await this.#seed(request.author);
			// Checked before anything is applied, so a refused request leaves no half-staged index.
			const clashes: string[] = [];
			for (const change of staged) {
				const problem = change.content === null ? null : await this.repo.shapeProblem(change.path);
				if (problem) clashes.push(problem);
			}
			if (clashes.length) return { ok: false, violations: clashes };
			const message = request.message.trim() || "Update files";
			const { sha, files } = await this.repo.commitChanges(staged, message, request.author);
			this.#recordRoutineAuthors(staged, files, request.authorId ?? null);
			this.#recordWriters(staged, files, request.authorId ?? null, request.tainted === true);
			return {
				ok: true,
				sha,
				files,
				findings: await this.#kgFindings(),
				routinesTouched: files.some((path) => path.startsWith("routines/")),
			};
		});
	}

	/** The last writer of each routine file this commit changed; a removed file, or one written by no user, has none. */
	#recordRoutineAuthors(staged: StagedChange[], changed: string[], authorId: number | null): void {
		const touched = new Set(changed.filter((path) => path.startsWith("routines/")));
		for (const change of staged) {
			if (!touched.has(change.path)) continue;
			if (change.content === null || authorId === null)
				this.ctx.storage.sql.exec(`DELETE FROM ${TABLES.routineAuthors} WHERE path = ?`, change.path);
			else
				this.ctx.storage.sql.exec(
					`INSERT INTO ${TABLES.routineAuthors} (path, user_id) VALUES (?, ?) ON CONFLICT (path) DO UPDATE SET user_id = excluded.user_id`,
					change.path,
					authorId,
				);
		}
	}

	/** The last writer of each file this commit changed; a removed file, or one written by no user (the platform), has none. */
	#recordWriters(staged: StagedChange[], changed: string[], authorId: number | null, tainted: boolean): void {
		const touched = new Set(changed);
		for (const change of staged) {
			if (!touched.has(change.path)) continue;
			if (change.content === null || authorId === null)
				this.ctx.storage.sql.exec(`DELETE FROM ${TABLES.fileWriters} WHERE path = ?`, change.path);
			else
				this.ctx.storage.sql.exec(
					`INSERT INTO ${TABLES.fileWriters} (path, user_id, tainted) VALUES (?, ?, ?)
					ON CONFLICT (path) DO UPDATE SET user_id = excluded.user_id, tainted = excluded.tainted`,
					change.path,
					authorId,
					Number(tainted),
				);
		}
	}

	/** The recorded writer of each of these paths that has one. */
	async writers(paths: string[]): Promise<Record<string, FileWriter>> {
		const found: Record<string, FileWriter> = {};
		for (const path of new Set(paths)) {
			const row = this.ctx.storage.sql
				.exec<{ user_id: number; tainted: number }>(`SELECT user_id, tainted FROM ${TABLES.fileWriters} WHERE path = ?`, path)
				.toArray()[0];
			if (row) found[path] = { userId: row.user_id, tainted: row.tainted === 1 };
		}
		return found;
	}

	/** Who last wrote each routine file, as recorded by commits (durable-objects/agent-user/routine-files.ts reads it). */
	async routineAuthors(): Promise<RoutineAuthors> {
		const rows = this.ctx.storage.sql
			.exec<{ path: string; user_id: number }>(`SELECT path, user_id FROM ${TABLES.routineAuthors}`)
			.toArray();
		return Object.fromEntries(rows.map((row) => [row.path, row.user_id]));
	}

	/** What this workspace's uploads take: the user's upload quota counts it (src/routes/agent-workspace.ts). */
	async uploadUsage(): Promise<UploadUsage> {
		return this.#usage();
	}

	#usage(): UploadUsage {
		return this.ctx.storage.sql
			.exec<{ bytes: number; files: number }>(`SELECT COALESCE(SUM(size), 0) AS bytes, COUNT(*) AS files FROM ${TABLES.uploads}`)
			.one();
	}

	/**
	 * Lists uploads the route stored in R2 (kept out of git objects), all or none: none when they
	 * would take the workspace past `allowance` (what the user's quota leaves it). Checked and
	 * written without an await between, so two requests at once cannot both pass the check. An
	 * upload at a path listed already replaces it.
	 */
	async addUploads(uploads: StoredUpload[], allowance: UploadUsage): Promise<AddUploadsOutcome> {
		const existing = uploads.map((upload) => this.upload(upload.path)).filter((upload) => upload !== null);
		const used = this.#usage();
		const after = {
			bytes: used.bytes + uploads.reduce((sum, u) => sum + u.size, 0) - existing.reduce((sum, u) => sum + u.size, 0),
			files: used.files + new Set(uploads.map((u) => u.path)).size - existing.length,
		};
		if (after.bytes > allowance.bytes || after.files > allowance.files) return { ok: false, used };
		for (const upload of uploads) {
			this.ctx.storage.sql.exec(
				`INSERT INTO ${TABLES.uploads} (path, name, size, key, content_type, text) VALUES (?, ?, ?, ?, ?, ?)
				ON CONFLICT(path) DO UPDATE SET name = excluded.name, size = excluded.size, key = excluded.key, content_type = excluded.content_type, text = excluded.text`,
				upload.path,
				upload.name,
				upload.size,
				upload.key,
				upload.content_type,
				upload.text === null ? null : Number(upload.text),
			);
		}
		return { ok: true, replaced: existing };
	}

	/** One listed upload, or null. */
	upload(path: string): StoredUpload | null {
		const row = this.ctx.storage.sql
			.exec<{ path: string; name: string; size: number; key: string | null; content_type: string | null; text: number | null }>(
				`SELECT path, name, size, key, content_type, text FROM ${TABLES.uploads} WHERE path = ?`,
				path,
			)
			.toArray()[0];
		return row ? { ...row, text: row.text === null ? null : row.text === 1 } : null;
	}

	/** Takes an upload off the list; its record (the route then deletes its object), or null when there was none. */
	async removeUpload(path: string): Promise<StoredUpload | null> {
		const upload = this.upload(path);
		if (upload) this.ctx.storage.sql.exec(`DELETE FROM ${TABLES.uploads} WHERE path = ?`, path);
		return upload;
	}

	/**
	 * Replaces this workspace's content with a shallow clone of an external repository
	 * (durable-objects/workspace/clone.ts): guarded, within the deployment's clone limits, the token only in `onAuth`.
	 */
	async cloneFrom(source: CloneSource): Promise<CloneOutcome> {
		return this.writing.run(() => {
			// The clone replaces every file; its routine files were written by no user of this service, so they are nobody's routines.
			this.ctx.storage.sql.exec(`DELETE FROM ${TABLES.routineAuthors}`);
			this.ctx.storage.sql.exec(`DELETE FROM ${TABLES.fileWriters}`);
			return cloneRepository(
				{ ...this.repo.options, cache: {}, empty: () => this.files.clear() },
				source,
				outboundPolicy(this.env),
				cloneLimits(this.env),
			);
		});
	}

	/** git smart HTTP, read-only (`info/refs?service=git-upload-pack`, `git-upload-pack`): durable-objects/workspace/export.ts. */
	override async fetch(request: Request): Promise<Response> {
		return serveGitExport(request, { ...this.repo.options, cache: {} });
	}
}
