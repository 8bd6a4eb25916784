import { SerialQueue } from "../shared/serial-queue";
import { addMissingColumns } from "../shared/sql-schema";
import { SqlFs } from "./fs";
import { WorkspaceRepo } from "./git";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

/** A Workspace's inside, handed to its parts (reading, commits, uploads): none of it is on the RPC surface. */
export interface WorkspaceContext {
	readonly sql: SqlStorage;
	/** The git repository's file system, in the object's SQLite storage (fs.ts). */
	readonly files: SqlFs;
	readonly repo: WorkspaceRepo;
	/** Writes one at a time: git's index and refs must not interleave across awaits. */
	readonly writing: SerialQueue;
}

export function workspaceContextOf(storage: DurableObjectStorage): WorkspaceContext {
	const sql = storage.sql;
	const files = new SqlFs(sql);
	sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.meta} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
	sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.uploads} (path TEXT PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL)`);
	addMissingColumns(sql, TABLES.uploads, { key: "TEXT", content_type: "TEXT", text: "INTEGER" });
	// Who wrote each routine file: in a shared workspace, a member's file must never become another member's routine.
	sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.routineAuthors} (path TEXT PRIMARY KEY, user_id INTEGER NOT NULL)`);
	// Who wrote each file: a turn that reads a file another member wrote has read their words (src/agent/taint.ts).
	sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.fileWriters} (path TEXT PRIMARY KEY, user_id INTEGER NOT NULL, tainted INTEGER NOT NULL)`);
	return { sql, files, repo: new WorkspaceRepo(files), writing: new SerialQueue() };
}
