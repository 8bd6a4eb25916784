/**
 * A workspace's uploads: listed here (path, size, R2 key), their bytes in R2, within the
 * owner's upload quota.
 */
import type { AddUploadsOutcome, StoredUpload, UploadUsage } from "../../src/workspace/workspace-types";
import type { WorkspaceContext } from "./context";
import { WORKSPACE_STORAGE } from "./storage";

const TABLES = WORKSPACE_STORAGE.tables;

export class WorkspaceUploads {
	constructor(private readonly ws: Pick<WorkspaceContext, "sql">) {}

	/** What this workspace's uploads take: the user's upload quota counts it (src/routes/agent-workspace.ts). */
	usage(): UploadUsage {
		return this.ws.sql
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
		const used = this.usage();
		const after = {
			bytes: used.bytes + uploads.reduce((sum, u) => sum + u.size, 0) - existing.reduce((sum, u) => sum + u.size, 0),
			files: used.files + new Set(uploads.map((u) => u.path)).size - existing.length,
		};
		if (after.bytes > allowance.bytes || after.files > allowance.files) return { ok: false, used };
		for (const upload of uploads) {
			this.ws.sql.exec(
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
		const row = this.ws.sql
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
		if (upload) this.ws.sql.exec(`DELETE FROM ${TABLES.uploads} WHERE path = ?`, path);
		return upload;
	}
}
