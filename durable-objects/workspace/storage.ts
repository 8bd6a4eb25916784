/**
 * Everything a Workspace keeps in its storage, SQL tables only. Code and tests name the tables
 * through this map; test/worker/durable-objects/storage-maps.test.ts checks it against what the object keeps.
 */
export const WORKSPACE_STORAGE = {
	keys: {},
	tables: {
		/** commits.ts: the workspace's name, set once by `init`. */
		meta: "workspace_meta",
		/** uploads.ts: uploads listed in the tree, their bytes in R2. */
		uploads: "workspace_uploads",
		/** commits.ts: who last wrote each routine file (agent-user/routine-files.ts reads it). */
		routineAuthors: "routine_authors",
		/** commits.ts: who last wrote each file, and whether the turn that wrote it had read other people's words (src/agent/taint.ts). */
		fileWriters: "file_writers",
		/** fs.ts: the git repository's files and directories. */
		fsEntries: "fs_entries",
		/** fs.ts: file contents, in chunks under the row limit. */
		fsChunks: "fs_chunks",
	},
} as const;
