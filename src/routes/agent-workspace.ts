import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../app-env";
import { ApiError, notFound } from "../errors";
import { workspaceObject } from "../objects";
import { activeWorkspace } from "../workspace/attachments";
import { commitAuthorOf } from "../workspace/author";
import { normalizePath } from "../workspace/paths";
import type { UploadRecord } from "../workspace/workspace-types";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * The caller's active workspace (docs/workspace.md): its files, its git history, uploads and
 * seeding. Mounted under each of AGENT_PREFIXES. Paths are checked here before they reach the
 * Workspace object; the workspace is always the key's user's, never one named in the request.
 */
export const agentWorkspaceRoutes = routeModule();

/** Per file, as the contract says (25 MB). */
export const MAX_UPLOAD_FILE_BYTES = 25 * 1024 * 1024;
/** One upload request in all: the app's 1 MiB body limit is lifted for this route, this one holds. */
export const MAX_UPLOAD_REQUEST_BYTES = 60 * 1024 * 1024;
/** How many commits `git` lists. */
const HISTORY_LIMIT = 50;

const WorkspaceTree = z
	.object({ files: z.array(z.string()).openapi({ description: "Workspace-relative paths, uploads included" }) })
	.openapi("WorkspaceTree");
const WorkspaceFile = z.object({ path: z.string(), content: z.string() }).openapi("WorkspaceFile");
const KgFinding = z.object({ path: z.string(), problem: z.string() }).openapi("KgFinding");
const WorkspaceCommit = z
	.object({
		sha: z.string(),
		msg: z.string(),
		when: z.string().openapi({ description: "ISO 8601 time of the commit" }),
		author: z.string().openapi({ description: "The author's name (the user who made it)" }),
		kind: z.enum(["you", "member", "system"]),
		files: z.array(z.string()).openapi({ description: "Paths this commit changed against its parent" }),
		ts: z.number().int().openapi({ description: "Seconds since the epoch" }),
	})
	.openapi("WorkspaceCommit");
const WorkspaceGit = z
	.object({
		branch: z.string(),
		changes: z.array(z.string()).openapi({ description: "Paths that differ from the last commit" }),
		commits: z.array(WorkspaceCommit).openapi({ description: "Newest first" }),
		kg_findings: z.array(KgFinding).openapi({ description: "Concept files in kg/ that break the Open Knowledge Format rules" }),
	})
	.openapi("WorkspaceGit");
const WorkspaceUploaded = z
	.object({ files: z.array(z.object({ name: z.string(), path: z.string().openapi({ description: "uploads/<sha256 prefix>-<name>" }) })) })
	.openapi("WorkspaceUploaded");
const WorkspaceInit = z.object({ workspace: z.string(), seeded: z.boolean(), already_initialized: z.boolean() }).openapi("WorkspaceInit");

const errors = (statuses: Record<number, string>) =>
	Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, jsonResponse(ApiErrorBody, description)]));

async function workspaceOf(c: Context<AppEnv>) {
	const name = await activeWorkspace(c.env, c.get("identity").userId);
	return { name, stub: workspaceObject(c.env, name) };
}

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/tree",
		request: { query: z.object({ hidden: z.enum(["true", "false", "1", "0"]).optional() }) },
		responses: {
			200: jsonResponse(WorkspaceTree, "Every file; `.git` never, other dot-paths only with hidden=true"),
			...errors({ 422: "A field error" }),
		},
	}),
	async (c) => {
		const { hidden } = c.req.valid("query");
		const { stub } = await workspaceOf(c);
		return c.json({ files: await stub.tree(hidden === "true" || hidden === "1") }, 200);
	},
);

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/file",
		request: { query: z.object({ path: z.string().max(1024) }) },
		responses: {
			200: jsonResponse(WorkspaceFile, "The file's text"),
			...errors({ 400: "The path is refused (outside the workspace, into .git, or malformed)", 404: "`not found`", 422: "A field error" }),
		},
	}),
	async (c) => {
		const checked = normalizePath(c.req.valid("query").path);
		if (!checked.ok) throw new ApiError(400, `Invalid path: ${checked.problem}`);
		const { stub } = await workspaceOf(c);
		const file = await stub.read(checked.path);
		if (!file) throw notFound("not found");
		return c.json(file, 200);
	},
);

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/git",
		responses: { 200: jsonResponse(WorkspaceGit, "Branch, uncommitted changes, the newest commits and the kg/ findings") },
	}),
	async (c) => {
		const { stub } = await workspaceOf(c);
		const { email } = await commitAuthorOf(c.env, c.get("identity").userId);
		return c.json(await stub.summary(email, HISTORY_LIMIT), 200);
	},
);

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "post",
		path: "/workspace/init",
		responses: { 201: jsonResponse(WorkspaceInit, "Seeded now, or already initialized (idempotent)") },
	}),
	async (c) => {
		const userId = c.get("identity").userId;
		const { name, stub } = await workspaceOf(c);
		return c.json(await stub.init(name, await commitAuthorOf(c.env, userId)), 201);
	},
);

/** A file name safe as one path segment: letters, digits, `.`, `-`, `_`; never hidden, never empty. */
export function sanitizeUploadName(raw: string): string {
	const base = raw.split(/[\\/]/).pop() ?? "";
	const safe = base
		.replace(/[^A-Za-z0-9._-]+/g, "_")
		.replace(/^[._]+/, "")
		.slice(-100);
	return safe || "file";
}

const sha12 = async (bytes: ArrayBuffer) =>
	[...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))]
		.slice(0, 6)
		.map((b) => b.toString(16).padStart(2, "0"))
		.join("");

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "post",
		path: "/workspace/upload",
		middleware: [
			bodyLimit({
				maxSize: MAX_UPLOAD_REQUEST_BYTES,
				onError: () => {
					throw new ApiError(413, `Upload request too large (at most ${MAX_UPLOAD_REQUEST_BYTES} bytes in all)`);
				},
			}),
		] as const,
		description:
			"Multipart form with one or more `files` fields, each at most 25 MiB. Stored beside the repository (not in git) and listed in the tree.",
		responses: {
			200: jsonResponse(WorkspaceUploaded, "Where each file is listed"),
			...errors({ 400: "No `files` in a multipart form", 413: "A file over 25 MiB, or the request over its cap" }),
		},
	}),
	async (c) => {
		let form: FormData;
		try {
			form = await c.req.raw.formData();
		} catch {
			throw new ApiError(400, "Expected a multipart form with `files`");
		}
		const files = form.getAll("files").filter((f): f is File => typeof f !== "string");
		if (files.length === 0) throw new ApiError(400, "No files: send one or more multipart `files` fields");
		const tooLarge = files.find((f) => f.size > MAX_UPLOAD_FILE_BYTES);
		if (tooLarge)
			throw new ApiError(413, `File too large: ${sanitizeUploadName(tooLarge.name)} is over ${MAX_UPLOAD_FILE_BYTES} bytes (25 MiB)`);

		const { name: workspace, stub } = await workspaceOf(c);
		const records: UploadRecord[] = [];
		for (const file of files) {
			const bytes = await file.arrayBuffer();
			const name = sanitizeUploadName(file.name);
			const path = `uploads/${await sha12(bytes)}-${name}`;
			await c.env.WORKSPACE_FILES.put(`${workspace}/${path}`, bytes, {
				httpMetadata: { contentType: file.type || "application/octet-stream" },
			});
			records.push({ name, path, size: file.size });
		}
		await stub.addUploads(records);
		return c.json({ files: records.map(({ name, path }) => ({ name, path })) }, 200);
	},
);
