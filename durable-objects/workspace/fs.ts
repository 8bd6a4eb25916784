import { Buffer } from "node:buffer";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

/**
 * A small POSIX-like file system over a Durable Object's SQLite storage, shaped as the
 * `fs.promises` isomorphic-git expects (Node-style stats, errors carrying `.code`). Contents are
 * split into chunks well under the 2 MB value/row limit, so a file of any size fits.
 * Paths are absolute ("/a/b"); the root "/" always exists.
 */

/** Below the 2 MB per-value and per-row limits of DO SQLite, with room for the key columns. */
export const CHUNK_BYTES = 1_500_000;

type Kind = "file" | "dir" | "symlink";

const MODE: Record<Kind, number> = { file: 0o100644, dir: 0o040000, symlink: 0o120000 };

interface EntryRow extends Record<string, SqlStorageValue> {
	id: number;
	path: string;
	kind: string;
	size: number;
	mtime: number;
	mode: number;
}

/** An error as Node's fs raises it: isomorphic-git branches on `code`. */
export class FsError extends Error {
	constructor(
		readonly code: "ENOENT" | "EEXIST" | "ENOTDIR" | "ENOTEMPTY" | "EISDIR" | "EINVAL",
		readonly path: string,
	) {
		super(`${code}: ${path}`);
	}
}

/** The Node `Stats` members isomorphic-git reads (index entries, status, walk). */
export class EntryStats {
	readonly ino: number;
	readonly mode: number;
	readonly size: number;
	readonly mtimeMs: number;
	readonly ctimeMs: number;
	readonly uid = 1;
	readonly gid = 1;
	readonly dev = 1;
	readonly mtime: Date;
	readonly ctime: Date;
	private readonly kind: Kind;

	constructor(row: EntryRow) {
		this.kind = row.kind as Kind;
		this.ino = row.id;
		this.mode = row.mode;
		this.size = row.size;
		this.mtimeMs = row.mtime;
		this.ctimeMs = row.mtime;
		this.mtime = new Date(row.mtime);
		this.ctime = new Date(row.mtime);
	}

	isFile() {
		return this.kind === "file";
	}
	isDirectory() {
		return this.kind === "dir";
	}
	isSymbolicLink() {
		return this.kind === "symlink";
	}
}

/** "/a//b/./c/" → "/a/b/c"; ".." is not resolved: git never sends it and nothing here may climb. */
export function normalizeFsPath(path: string): string {
	const parts = path.split("/").filter((p) => p !== "" && p !== ".");
	return `/${parts.join("/")}`;
}

const parentOf = (path: string) => {
	const cut = path.lastIndexOf("/");
	return cut <= 0 ? "/" : path.slice(0, cut);
};

type Encoding = { encoding?: string | null } | string | undefined | null;
const encodingOf = (options: Encoding) => (typeof options === "string" ? options : (options?.encoding ?? null));

export class SqlFs {
	/** The object isomorphic-git takes as `fs` (it looks for an enumerable `promises`). */
	readonly gitFs: { promises: SqlFs };

	constructor(private readonly sql: SqlStorage) {
		sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.fsEntries} (
			id INTEGER PRIMARY KEY AUTOINCREMENT,
			path TEXT NOT NULL UNIQUE,
			parent TEXT NOT NULL,
			kind TEXT NOT NULL,
			size INTEGER NOT NULL,
			mtime INTEGER NOT NULL,
			mode INTEGER NOT NULL
		)`);
		sql.exec(`CREATE INDEX IF NOT EXISTS fs_entries_parent ON ${TABLES.fsEntries}(parent)`);
		sql.exec(
			`CREATE TABLE IF NOT EXISTS ${TABLES.fsChunks} (path TEXT NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (path, idx))`,
		);
		this.gitFs = { promises: this };
	}

	private entry(path: string): EntryRow | null {
		if (path === "/") return { id: 1, path: "/", kind: "dir", size: 0, mtime: 0, mode: MODE.dir };
		return (
			this.sql.exec<EntryRow>(`SELECT id, path, kind, size, mtime, mode FROM ${TABLES.fsEntries} WHERE path = ?`, path).toArray()[0] ?? null
		);
	}

	/** The entry at `path`, following nothing; ENOTDIR when an ancestor is a file. */
	private lookup(path: string): EntryRow {
		const found = this.entry(path);
		if (found) return found;
		for (let dir = parentOf(path); dir !== "/"; dir = parentOf(dir)) {
			const ancestor = this.entry(dir);
			if (ancestor && ancestor.kind !== "dir") throw new FsError("ENOTDIR", path);
			if (ancestor) break;
		}
		throw new FsError("ENOENT", path);
	}

	private requireParentDir(path: string): void {
		const parent = this.entry(parentOf(path));
		if (!parent) throw new FsError("ENOENT", path);
		if (parent.kind !== "dir") throw new FsError("ENOTDIR", path);
	}

	private readBytes(path: string): Uint8Array {
		const chunks = this.sql.exec<{ data: ArrayBuffer }>(`SELECT data FROM ${TABLES.fsChunks} WHERE path = ? ORDER BY idx`, path).toArray();
		const total = chunks.reduce((n, c) => n + c.data.byteLength, 0);
		const out = new Uint8Array(total);
		let at = 0;
		for (const { data } of chunks) {
			out.set(new Uint8Array(data), at);
			at += data.byteLength;
		}
		return out;
	}

	private put(path: string, kind: Kind, bytes: Uint8Array, mode: number): void {
		this.sql.exec(`DELETE FROM ${TABLES.fsChunks} WHERE path = ?`, path);
		for (let idx = 0, at = 0; at < bytes.byteLength; idx++, at += CHUNK_BYTES) {
			const piece = bytes.slice(at, at + CHUNK_BYTES);
			this.sql.exec(`INSERT INTO ${TABLES.fsChunks} (path, idx, data) VALUES (?, ?, ?)`, path, idx, piece.buffer);
		}
		this.sql.exec(
			`INSERT INTO ${TABLES.fsEntries} (path, parent, kind, size, mtime, mode) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT(path) DO UPDATE SET kind = excluded.kind, size = excluded.size, mtime = excluded.mtime, mode = excluded.mode`,
			path,
			parentOf(path),
			kind,
			bytes.byteLength,
			Date.now(),
			mode,
		);
	}

	async readFile(rawPath: string, options?: Encoding): Promise<Buffer | string> {
		if (typeof rawPath !== "string") throw new FsError("EINVAL", String(rawPath));
		const path = normalizeFsPath(rawPath);
		const found = this.lookup(path);
		if (found.kind === "dir") throw new FsError("EISDIR", path);
		const bytes = this.readBytes(path);
		return encodingOf(options) ? new TextDecoder().decode(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	}

	async writeFile(rawPath: string, data: Uint8Array | string, options?: { mode?: number } | string): Promise<void> {
		const path = normalizeFsPath(rawPath);
		if (path === "/") throw new FsError("EISDIR", path);
		this.requireParentDir(path);
		const existing = this.entry(path);
		if (existing?.kind === "dir") throw new FsError("EISDIR", path);
		const bytes = typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
		const mode = typeof options === "object" && options?.mode ? options.mode : MODE.file;
		this.put(path, "file", bytes, mode === 0o777 || mode === 0o755 ? 0o100755 : mode);
	}

	async unlink(rawPath: string): Promise<void> {
		const path = normalizeFsPath(rawPath);
		const found = this.lookup(path);
		if (found.kind === "dir") throw new FsError("EISDIR", path);
		this.sql.exec(`DELETE FROM ${TABLES.fsChunks} WHERE path = ?`, path);
		this.sql.exec(`DELETE FROM ${TABLES.fsEntries} WHERE path = ?`, path);
	}

	async readdir(rawPath: string): Promise<string[]> {
		const path = normalizeFsPath(rawPath);
		const found = this.lookup(path);
		if (found.kind !== "dir") throw new FsError("ENOTDIR", path);
		const prefix = path === "/" ? "/" : `${path}/`;
		return this.sql
			.exec<{ path: string }>(`SELECT path FROM ${TABLES.fsEntries} WHERE parent = ? ORDER BY path`, path)
			.toArray()
			.map((row) => row.path.slice(prefix.length));
	}

	async mkdir(rawPath: string, options?: { recursive?: boolean }): Promise<void> {
		const path = normalizeFsPath(rawPath);
		if (options?.recursive) return this.mkdirs(path);
		if (this.entry(path)) throw new FsError("EEXIST", path);
		this.requireParentDir(path);
		this.put(path, "dir", new Uint8Array(0), MODE.dir);
	}

	/** `mkdir -p`: every missing ancestor too; a file in the way is ENOTDIR. */
	mkdirs(rawPath: string): void {
		const path = normalizeFsPath(rawPath);
		const existing = this.entry(path);
		if (existing) {
			if (existing.kind !== "dir") throw new FsError("ENOTDIR", path);
			return;
		}
		this.mkdirs(parentOf(path));
		this.put(path, "dir", new Uint8Array(0), MODE.dir);
	}

	async rmdir(rawPath: string): Promise<void> {
		const path = normalizeFsPath(rawPath);
		const found = this.lookup(path);
		if (found.kind !== "dir") throw new FsError("ENOTDIR", path);
		if (path === "/") throw new FsError("EINVAL", path);
		const child = this.sql.exec(`SELECT 1 FROM ${TABLES.fsEntries} WHERE parent = ? LIMIT 1`, path).toArray();
		if (child.length) throw new FsError("ENOTEMPTY", path);
		this.sql.exec(`DELETE FROM ${TABLES.fsEntries} WHERE path = ?`, path);
	}

	async stat(rawPath: string): Promise<EntryStats> {
		const path = normalizeFsPath(rawPath);
		const found = this.lookup(path);
		// Links are stored as text; follow one hop, which is all git's work trees need.
		if (found.kind === "symlink") return this.lstat(new TextDecoder().decode(this.readBytes(path)));
		return new EntryStats(found);
	}

	async lstat(rawPath: string): Promise<EntryStats> {
		return new EntryStats(this.lookup(normalizeFsPath(rawPath)));
	}

	async readlink(rawPath: string): Promise<Buffer | string> {
		const path = normalizeFsPath(rawPath);
		if (this.lookup(path).kind !== "symlink") throw new FsError("EINVAL", path);
		return new TextDecoder().decode(this.readBytes(path));
	}

	async symlink(target: string, rawPath: string): Promise<void> {
		const path = normalizeFsPath(rawPath);
		if (this.entry(path)) throw new FsError("EEXIST", path);
		this.requireParentDir(path);
		this.put(path, "symlink", new TextEncoder().encode(target), MODE.symlink);
	}

	/** Empties the whole file system (work tree and repository), e.g. before a clone replaces it. */
	clear(): void {
		this.sql.exec(`DELETE FROM ${TABLES.fsChunks}`);
		this.sql.exec(`DELETE FROM ${TABLES.fsEntries}`);
	}

	/** Every file (not directory) under `dir`, as paths relative to it. */
	filesUnder(rawDir: string): string[] {
		const dir = normalizeFsPath(rawDir);
		const prefix = dir === "/" ? "/" : `${dir}/`;
		return this.sql
			.exec<{ path: string }>(
				`SELECT path FROM ${TABLES.fsEntries} WHERE kind != 'dir' AND substr(path, 1, ?) = ? ORDER BY path`,
				prefix.length,
				prefix,
			)
			.toArray()
			.map((row) => row.path.slice(prefix.length));
	}

	/** Writes a file, creating its directories first (the work tree, not git's own writes). */
	async writeFileDeep(path: string, data: Uint8Array | string): Promise<void> {
		this.mkdirs(parentOf(normalizeFsPath(path)));
		await this.writeFile(path, data);
	}

	/** Removes a file and then each directory it leaves empty, as git's work tree has no empty dirs. */
	async removeFileDeep(rawPath: string): Promise<void> {
		const path = normalizeFsPath(rawPath);
		await this.unlink(path);
		for (let dir = parentOf(path); dir !== "/"; dir = parentOf(dir)) {
			if (this.sql.exec(`SELECT 1 FROM ${TABLES.fsEntries} WHERE parent = ? LIMIT 1`, dir).toArray().length) break;
			this.sql.exec(`DELETE FROM ${TABLES.fsEntries} WHERE path = ?`, dir);
		}
	}
}
