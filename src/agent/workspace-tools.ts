import { z } from "@hono/zod-openapi";
import { ApiError, notFound } from "../errors";
import { normalizePath } from "../workspace/paths";
import { clip, defineTool, type ToolUser } from "./tool-definition";
import type { StageOutcome, TurnFiles } from "./turn-files";

/**
 * The file tools: the model reads, searches and edits the user's workspace (docs/workspace.md#the-agents-file-tools).
 * Edits are staged on the turn (src/agent/turn-files.ts) and committed once when it ends; a write
 * governance refuses fails at once and stages nothing. The same scopes as the workspace routes.
 * A file another user wrote (a member, a cloned repository) or a meeting document taints the turn
 * that reads it (src/agent/taint.ts).
 */

/** A file the model reads comes back as at most this many characters. */
export const MAX_READ_CHARS = 60_000;
/** A file the model writes is at most this many characters. */
export const MAX_WRITE_CHARS = 500_000;
const MAX_LISTED_FILES = 2_000;

const FILE_SCOPES = ["bot", "tx"] as const;
/** Writing takes `bot`, as the routes that keep files do: a `tx` key reads. */
const WRITE_SCOPES = ["bot"] as const;

const PathArg = z.string().trim().min(1).max(500).describe("A path inside the workspace, relative to its root (e.g. kg/index.md)");

function filesOf(user: ToolUser): TurnFiles {
	// The tool is only offered with files (tools.ts); this guards a direct call.
	if (!user.files) throw new ApiError(409, "This turn has no workspace");
	return user.files;
}

/** The path in its normal form; traversal, `.git` and absolute paths are refused, as the file route refuses them. */
function readable(path: string): string {
	const checked = normalizePath(path);
	if (!checked.ok) throw new ApiError(400, `${path}: ${checked.problem}`);
	return checked.path;
}

function staged(outcome: StageOutcome, what: string): void {
	if (outcome.ok) return;
	if ("missing" in outcome) throw notFound("not found");
	throw new ApiError(403, `${what} refused: ${outcome.violations.join("; ")}`);
}

const readFileTool = defineTool({
	name: "read_file",
	description:
		"Read a text file of the user's workspace, as this turn left it. Uploads (uploads/…) are read as stored: " +
		"a text upload's start, or what a binary one is.",
	args: z.object({ path: PathArg }),
	writes: false,
	files: true,
	scopes: FILE_SCOPES,
	async run(_env, user, args) {
		const path = readable(args.path);
		if (path.startsWith("uploads/")) {
			const upload = await filesOf(user).readUpload(path, MAX_READ_CHARS);
			if (!upload) throw notFound("not found");
			const what = "content" in upload ? `${upload.content.length} characters` : `binary, ${upload.size} bytes`;
			return { result: upload, summary: clip(`read ${args.path} (${what})`), foreign: await filesOf(user).anyForeign([path]) };
		}
		const content = await filesOf(user).read(path);
		if (content === null) throw notFound("not found");
		const truncated = content.length > MAX_READ_CHARS;
		return {
			result: { path, content: truncated ? content.slice(0, MAX_READ_CHARS) : content, ...(truncated ? { truncated: true } : {}) },
			summary: clip(`read ${args.path} (${content.length} characters)`),
			foreign: await filesOf(user).anyForeign([path]),
		};
	},
});

const searchFilesTool = defineTool({
	name: "search_files",
	description: "Find lines of the workspace's files that contain a text (case-insensitive): path, line number and line.",
	args: z.object({ query: z.string().min(1).max(200) }),
	writes: false,
	files: true,
	scopes: FILE_SCOPES,
	async run(_env, user, args) {
		const hits = await filesOf(user).search(args.query);
		return {
			result: { hits, count: hits.length },
			summary: hits.length === 1 ? "1 match" : `${hits.length} matches`,
			foreign: await filesOf(user).anyForeign(hits.map((hit) => hit.path)),
		};
	},
});

const listFilesTool = defineTool({
	name: "list_files",
	description: "List every file of the workspace (dot-files and .git left out), with this turn's edits.",
	args: z.object({}),
	writes: false,
	files: true,
	scopes: FILE_SCOPES,
	async run(_env, user) {
		const turnFiles = filesOf(user);
		const files = await turnFiles.list();
		const omitted = Math.max(0, files.length - MAX_LISTED_FILES);
		const listed = files.slice(0, MAX_LISTED_FILES);
		return {
			result: { files: listed, count: files.length, ...(omitted > 0 ? { omitted } : {}) },
			summary: files.length === 1 ? "1 file" : `${files.length} files`,
			// Names are not contents: only outside the user's home do others choose them.
			foreign: !turnFiles.isHome && (await turnFiles.anyForeign(listed)),
		};
	},
});

const writeFileTool = defineTool({
	name: "write_file",
	description:
		"Create or replace a text file of the workspace with the whole of its new content. It is committed when your turn ends. " +
		"Policy files (policy/) and anything outside the workspace are refused.",
	args: z.object({ path: PathArg, content: z.string().max(MAX_WRITE_CHARS) }),
	writes: true,
	files: true,
	scopes: WRITE_SCOPES,
	async run(_env, user, args) {
		staged(filesOf(user).write(args.path, args.content), `Writing ${args.path}`);
		return { result: { path: args.path, staged: true }, summary: clip(`wrote ${args.path}`) };
	},
});

const deleteFileTool = defineTool({
	name: "delete_file",
	description: "Remove a file of the workspace; committed when your turn ends. Policy files are refused.",
	args: z.object({ path: PathArg }),
	writes: true,
	files: true,
	scopes: WRITE_SCOPES,
	async run(_env, user, args) {
		staged(await filesOf(user).remove(args.path), `Deleting ${args.path}`);
		return { result: { path: args.path, deleted: true }, summary: clip(`deleted ${args.path}`) };
	},
});

export const WORKSPACE_TOOLS = [readFileTool, searchFilesTool, listFilesTool, writeFileTool, deleteFileTool];
