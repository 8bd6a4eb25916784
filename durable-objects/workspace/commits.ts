/**
 * Writing a workspace: seeding it, commits (an agent's refused on policy paths), and who last
 * wrote each file and each routine file.
 */
import { normalizePath, writeViolation } from "../../src/workspace/paths";
import { SEED_MESSAGE, seedFiles } from "../../src/workspace/seed";
import type {
	CommitAuthor,
	CommitOutcome,
	CommitRequest,
	FileWriter,
	InitOutcome,
	RoutineAuthors,
} from "../../src/workspace/workspace-types";
import type { WorkspaceContext } from "./context";
import type { StagedChange } from "./git";
import { kgFindings } from "./reading";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

export type CommitsHost = Pick<WorkspaceContext, "sql" | "repo" | "writing">;

export class WorkspaceCommits {
	constructor(private readonly ws: CommitsHost) {}

	/** Seeds the workspace (committed as `seed`, by `author`) unless it already has a commit. */
	async init(name: string, author: CommitAuthor): Promise<InitOutcome> {
		return this.ws.writing.run(async () => {
			this.ws.sql.exec(`INSERT OR IGNORE INTO ${TABLES.meta} (key, value) VALUES ('name', ?)`, name);
			if ((await this.ws.repo.head()) !== null) return { workspace: name, seeded: false, already_initialized: true };
			await this.#seed(author);
			return { workspace: name, seeded: true, already_initialized: false };
		});
	}

	async #seed(author: CommitAuthor): Promise<void> {
		await this.ws.repo.commitChanges(seedFiles(), SEED_MESSAGE, author);
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
		return this.ws.writing.run(async (): Promise<CommitOutcome> => {
			if ((await this.ws.repo.head()) === null) await this.#seed(request.author);
			// Checked before anything is applied, so a refused request leaves no half-staged index.
			const clashes: string[] = [];
			for (const change of staged) {
				const problem = change.content === null ? null : await this.ws.repo.shapeProblem(change.path);
				if (problem) clashes.push(problem);
			}
			if (clashes.length) return { ok: false, violations: clashes };
			const message = request.message.trim() || "Update files";
			const { sha, files } = await this.ws.repo.commitChanges(staged, message, request.author);
			this.#recordRoutineAuthors(staged, files, request.authorId ?? null);
			this.#recordWriters(staged, files, request.authorId ?? null, request.tainted === true);
			return {
				ok: true,
				sha,
				files,
				findings: await kgFindings(this.ws),
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
				this.ws.sql.exec(`DELETE FROM ${TABLES.routineAuthors} WHERE path = ?`, change.path);
			else
				this.ws.sql.exec(
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
			if (change.content === null || authorId === null) this.ws.sql.exec(`DELETE FROM ${TABLES.fileWriters} WHERE path = ?`, change.path);
			else
				this.ws.sql.exec(
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
			const row = this.ws.sql
				.exec<{ user_id: number; tainted: number }>(`SELECT user_id, tainted FROM ${TABLES.fileWriters} WHERE path = ?`, path)
				.toArray()[0];
			if (row) found[path] = { userId: row.user_id, tainted: row.tainted === 1 };
		}
		return found;
	}

	/** Who last wrote each routine file, as recorded by commits (durable-objects/agent-user/routine-files.ts reads it). */
	async routineAuthors(): Promise<RoutineAuthors> {
		const rows = this.ws.sql.exec<{ path: string; user_id: number }>(`SELECT path, user_id FROM ${TABLES.routineAuthors}`).toArray();
		return Object.fromEntries(rows.map((row) => [row.path, row.user_id]));
	}
}
