import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentLimits } from "../agent/agent-limits";
import type { AppEnv } from "../app-env";
import type { Env } from "../env";
import { ApiError, notFound } from "../errors";
import { workspaceObject } from "../objects";
import { activeWorkspace, listAttachments } from "../workspace/attachments";
import { commitAuthorOf } from "../workspace/author";
import { formBoundary, MultipartError, readMultipart } from "../workspace/multipart";
import { normalizePath } from "../workspace/paths";
import {
	MAX_UPLOAD_FILE_BYTES,
	MAX_UPLOAD_REQUEST_BYTES,
	quotaProblem,
	sanitizeUploadName,
	storeUpload,
	uploadAsJson,
	uploadKey,
} from "../workspace/uploads";
import type { StoredUpload, UploadUsage } from "../workspace/workspace-types";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * The caller's active workspace (docs/workspace.md): its files, its git history, uploads and
 * seeding. Mounted under each of AGENT_PREFIXES. Paths are checked here before they reach the
 * Workspace object; the workspace is always the key's user's, never one named in the request.
 */
export const agentWorkspaceRoutes = routeModule();

/** How many commits `git` lists. */
const HISTORY_LIMIT = 50;

const WorkspaceTree = z
	.object({ files: z.array(z.string()).openapi({ description: "Workspace-relative paths, uploads included" }) })
	.openapi("WorkspaceTree");
const WorkspaceFile = z
	.object({
		path: z.string(),
		content: z.string().openapi({ description: "The file's text; an upload that is no UTF-8 text comes as base64" }),
		encoding: z.literal("base64").optional().openapi({ description: "Present when `content` is base64: a binary upload" }),
	})
	.openapi("WorkspaceFile");
const UploadDeleted = z.object({ ok: z.literal(true), path: z.string() }).openapi("WorkspaceUploadDeleted");
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

/** `true`/`false` in any case (Python clients send `True`), or `1`/`0`; read as lower case. */
const HiddenFlag = z
	.string()
	.regex(/^(?:true|false|1|0)$/i, "true or false (any case), 1 or 0")
	.transform((flag) => flag.toLowerCase())
	.openapi({ type: "string", example: "true" });

async function workspaceOf(c: Context<AppEnv>) {
	const name = await activeWorkspace(c.env, c.get("identity").userId);
	return { name, stub: workspaceObject(c.env, name) };
}

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/tree",
		request: { query: z.object({ hidden: HiddenFlag.optional() }) },
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

const FilePath = z.object({ path: z.string().max(1024) });

/** A path a client named, in its normal form; 400 when it is refused. */
function checkedPath(raw: string): string {
	const checked = normalizePath(raw);
	if (!checked.ok) throw new ApiError(400, `Invalid path: ${checked.problem}`);
	return checked.path;
}

const isUpload = (path: string) => path.startsWith("uploads/");

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/file",
		request: { query: FilePath },
		description: "A file of the work tree as text, or an upload (uploads/…): its text, or base64 with `encoding` for a binary one.",
		responses: {
			200: jsonResponse(WorkspaceFile, "The file's content"),
			...errors({ 400: "The path is refused (outside the workspace, into .git, or malformed)", 404: "`not found`", 422: "A field error" }),
		},
	}),
	async (c) => {
		const path = checkedPath(c.req.valid("query").path);
		const { name, stub } = await workspaceOf(c);
		if (isUpload(path)) {
			const upload = await stub.upload(path);
			if (!upload) throw notFound("not found");
			// Streamed, so a 25 MB upload is never held whole: the documented WorkspaceFile JSON, written as it is read
			// (the typed c.json cannot take a stream, hence the cast).
			const body = await uploadAsJson(c.env.WORKSPACE_FILES, name, upload);
			return new Response(body, { status: 200, headers: { "content-type": "application/json" } }) as never;
		}
		const file = await stub.read(path);
		if (!file) throw notFound("not found");
		return c.json(file, 200);
	},
);

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/workspace/file",
		request: { query: FilePath },
		description: "Deletes an upload (uploads/…), freeing its share of the upload quota. Files of the work tree change through commits.",
		responses: {
			200: jsonResponse(UploadDeleted, "Deleted: no longer listed, its bytes gone"),
			...errors({
				400: "The path is refused, or is no upload",
				403: "The key lacks the bot scope",
				404: "`not found`",
				422: "A field error",
			}),
		},
	}),
	async (c) => {
		const path = checkedPath(c.req.valid("query").path);
		if (!isUpload(path)) throw new ApiError(400, `Only uploads are deleted here (uploads/…); ${path} changes through a commit`);
		const { name, stub } = await workspaceOf(c);
		const removed = await stub.removeUpload(path);
		if (!removed) throw notFound("not found");
		await c.env.WORKSPACE_FILES.delete(uploadKey(name, removed));
		return c.json({ ok: true as const, path }, 200);
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

/** What the user's uploads take in their other workspaces (home and attached repositories): the quota is the user's. */
async function usageElsewhere(env: Env, userId: number, active: string): Promise<UploadUsage> {
	const { active: current, parked } = await listAttachments(env, userId);
	const others = [current, ...parked].map((w) => w.workspace).filter((w) => w !== active);
	const usages = await Promise.all(others.map((w) => workspaceObject(env, w).uploadUsage()));
	return usages.reduce((sum, u) => ({ bytes: sum.bytes + u.bytes, files: sum.files + u.files }), { bytes: 0, files: 0 });
}

const requestTooLarge = () => new ApiError(413, `Upload request too large (at most ${MAX_UPLOAD_REQUEST_BYTES} bytes in all)`);

agentWorkspaceRoutes.openapi(
	createRoute({
		method: "post",
		path: "/workspace/upload",
		description:
			"Multipart form with one or more `files` fields, each at most 25 MiB, 60 MiB in all. Each file streams to storage as it arrives; " +
			"stored beside the repository (not in git) and listed in the tree. The user's uploads are capped (WORKSPACE_UPLOAD_QUOTA_BYTES, WORKSPACE_UPLOAD_QUOTA_FILES).",
		responses: {
			200: jsonResponse(WorkspaceUploaded, "Where each file is listed"),
			...errors({
				400: "No `files` in a multipart form, or a body that is no multipart form",
				403: "The key lacks the bot scope",
				413: "A file over 25 MiB, the request over 60 MiB, or the user's upload quota passed (the detail names it); nothing is stored",
			}),
		},
	}),
	async (c) => {
		const boundary = formBoundary(c.req.header("content-type") ?? null);
		const body = c.req.raw.body;
		if (!boundary || !body) throw new ApiError(400, "Expected a multipart form with `files`");
		if (Number(c.req.header("content-length") ?? 0) > MAX_UPLOAD_REQUEST_BYTES) throw requestTooLarge();
		const { name: workspace, stub } = await workspaceOf(c);
		const limits = agentLimits(c.env);
		const quota = { bytes: limits.uploadQuotaBytes, files: limits.uploadQuotaFiles };
		const elsewhere = await usageElsewhere(c.env, c.get("identity").userId, workspace);
		const here = await stub.uploadUsage();
		const used = { bytes: elsewhere.bytes + here.bytes, files: elsewhere.files + here.files };
		const bucket = c.env.WORKSPACE_FILES;
		const stored: StoredUpload[] = [];
		// What this request's stored files add; a file that replaces one kept already (the same name and bytes) adds nothing.
		const adding: UploadUsage = { bytes: 0, files: 0 };
		const forget = (uploads: StoredUpload[]) => (uploads.length ? bucket.delete(uploads.map((u) => uploadKey(workspace, u))) : undefined);
		try {
			await readMultipart(body, boundary, MAX_UPLOAD_REQUEST_BYTES, requestTooLarge, async (part, bytes) => {
				if (part.name !== "files" || part.filename === null) return;
				const filename = part.filename;
				// The file streaming now is counted once stored, so past the quota at most one file is ever held.
				const admit = (size: number) => {
					if (size > MAX_UPLOAD_FILE_BYTES)
						throw new ApiError(413, `File too large: ${sanitizeUploadName(filename)} is over ${MAX_UPLOAD_FILE_BYTES} bytes (25 MiB)`);
					const problem = quotaProblem(used, adding, quota);
					if (problem) throw new ApiError(413, problem);
				};
				const upload = await storeUpload(bucket, workspace, { filename, contentType: part.contentType }, bytes, admit);
				stored.push(upload);
				const kept = stored.slice(0, -1).find((u) => u.path === upload.path) ?? (await stub.upload(upload.path));
				adding.bytes += upload.size - (kept?.size ?? 0);
				adding.files += kept ? 0 : 1;
				const problem = quotaProblem(used, adding, quota);
				if (problem) throw new ApiError(413, problem);
			});
		} catch (err) {
			await forget(stored);
			if (err instanceof MultipartError) throw new ApiError(400, `Expected a multipart form with \`files\`: ${err.message}`);
			throw err;
		}
		if (stored.length === 0) throw new ApiError(400, "No files: send one or more multipart `files` fields");
		// The same file twice in one request is one upload.
		const unique = [...new Map(stored.map((u) => [u.path, u])).values()];
		await forget(stored.filter((u) => !unique.includes(u)));
		const added = await stub.addUploads(unique, { bytes: quota.bytes - elsewhere.bytes, files: quota.files - elsewhere.files });
		if (!added.ok) {
			await forget(unique);
			// Another request stored files meanwhile: the quota as it stands now decides.
			const asked = { bytes: unique.reduce((sum, u) => sum + u.size, 0), files: unique.length };
			const now = { bytes: elsewhere.bytes + added.used.bytes, files: elsewhere.files + added.used.files };
			throw new ApiError(413, quotaProblem(now, asked, quota) ?? "Upload quota exceeded");
		}
		await forget(added.replaced);
		return c.json({ files: stored.map(({ name, path }) => ({ name, path })) }, 200);
	},
);
