import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { ApiError, invalidField } from "../errors";
import { workspaceObject } from "../objects";
import { readCappedBytes } from "../outbound/capped-body";
import { checkOutboundUrl, outboundPolicy } from "../outbound/url-guard";
import { setting } from "../settings/deployment-defaults";
import { activate, activeWorkspace, attachmentFor, isAttached, listAttachments } from "../workspace/attachments";
import { ApiErrorBody, jsonBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * A workspace as a repository on the wire (docs/workspace.md): `attached` and `swap` (an
 * external repository cloned into its own workspace, the current one parked), and the
 * read-only git export `repo.git` of the caller's active workspace, served by its Workspace
 * object. Mounted under each of AGENT_PREFIXES; the owner is always the key's user.
 */
export const agentWorkspaceGitRoutes = routeModule();

const WorkspaceView = z
	.object({
		workspace: z.string().openapi({ description: "The workspace's name: `home:<user_id>` or `repo:<user_id>:<key>`" }),
		kind: z.enum(["home", "repo"]),
		repo: z.string().nullable().openapi({ description: "The attached repository's address, never with credentials; null for home" }),
		ref: z.string().nullable(),
	})
	.openapi("WorkspaceView");
const Attachments = z.object({ active: WorkspaceView, parked: z.array(WorkspaceView) }).openapi("WorkspaceAttachments");

// The reference's swap answer (core/agent/control_plane/api.py `ws_swap`), with workspace names as its slugs, and ours beside it.
const Swapped = z
	.object({
		subject: z.string().openapi({ description: "The key's user id" }),
		active: z.string().openapi({ description: "The name of the workspace now active (the reference's slug)" }),
		repo: z.string().nullable().openapi({ description: "Its repository, never with credentials; null for home" }),
		ref: z.string().nullable(),
		swapped: z.boolean().openapi({ description: "false when the target was already the active workspace" }),
		cloned: z.boolean().openapi({ description: "true when the repository was cloned now, false when a parked clone was restored" }),
		parked: z.string().nullable().openapi({ description: "The name of the workspace this swap parked; null when none was" }),
		nested: z.boolean().openapi({ description: "Always false: a repository is the workspace's root, never nested under it" }),
		attached: Attachments,
	})
	.openapi("WorkspaceSwapped");

// A branch name as git allows it, conservatively: no `..`, no leading dash or slash.
const REF = /^(?!.*\.\.)(?![-/])[A-Za-z0-9._/-]{1,200}$/;

const SwapBody = z.object({
	repo: z
		.string()
		.trim()
		.max(2000)
		.optional()
		.openapi({ description: "An https URL of a git repository; omitted: back to the home workspace" }),
	ref: z.string().trim().regex(REF, "must be a branch name").default("main"),
	token: z.string().max(4000).optional().openapi({ description: "For a private repository; used for the clone, never stored" }),
});

const errors = {
	401: jsonResponse(ApiErrorBody, "No valid API key"),
	403: jsonResponse(ApiErrorBody, "The key lacks the bot or tx scope"),
};

const userOf = (c: Context<AppEnv>) => c.get("identity").userId;

agentWorkspaceGitRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/attached",
		responses: { 200: jsonResponse(Attachments, "The active workspace and the parked ones"), ...errors },
	}),
	async (c) => c.json(await listAttachments(c.env, userOf(c)), 200),
);

agentWorkspaceGitRoutes.openapi(
	createRoute({
		method: "post",
		path: "/workspace/swap",
		request: { body: jsonBody(SwapBody) },
		responses: {
			200: jsonResponse(Swapped, "The target is active and the previous workspace parked; `attached` as GET /workspace/attached"),
			413: jsonResponse(
				ApiErrorBody,
				"The repository is past a clone limit (bytes, unpacked size, objects, files or time), named in the detail",
			),
			422: jsonResponse(ApiErrorBody, "A field error: `repo` not an https URL, or an address the outbound guard refuses"),
			502: jsonResponse(ApiErrorBody, "The clone failed; the detail never contains the token"),
			...errors,
		},
	}),
	async (c) => {
		const userId = userOf(c);
		const { repo, ref, token } = c.req.valid("json");
		const before = await activeWorkspace(c.env, userId);
		const answer = async (target: { workspace: string; repo: string; ref: string } | null, cloned: boolean) => {
			const attached = await listAttachments(c.env, userId);
			const swapped = attached.active.workspace !== before;
			return c.json(
				{
					subject: String(userId),
					active: attached.active.workspace,
					repo: target?.repo ?? null,
					ref: target?.ref ?? null,
					swapped,
					cloned,
					parked: swapped ? before : null,
					nested: false,
					attached,
				},
				200,
			);
		};
		if (!repo) {
			await activate(c.env, userId, null);
			return answer(null, false);
		}
		const policy = outboundPolicy(c.env);
		const address = parseRepositoryUrl(repo, policy.allowPrivate);
		const checked = checkOutboundUrl(address, policy);
		if (!checked.ok) throw invalidField(["body", "repo"], `repo is not allowed: ${checked.detail}`);
		const normalized = checked.url.toString();
		const workspace = await attachmentFor(userId, normalized, ref);
		// An attachment seen before is restored as it was left; a new one is cloned first.
		const cloned = !(await isAttached(c.env, userId, workspace));
		if (cloned) {
			const outcome = await workspaceObject(c.env, workspace).cloneFrom({ repo: normalized, ref, token: token || null });
			if (!outcome.ok) throw new ApiError(outcome.status, outcome.detail);
		}
		const target = { workspace, repo: normalized, ref };
		await activate(c.env, userId, target);
		return answer(target, cloned);
	},
);

/** An https URL (http only where the deployment allows private targets: dev and tests). */
function parseRepositoryUrl(repo: string, allowHttp: boolean): string {
	let url: URL;
	try {
		url = new URL(repo);
	} catch {
		throw invalidField(["body", "repo"], "repo must be an https URL");
	}
	const schemeOk = url.protocol === "https:" || (allowHttp && url.protocol === "http:");
	if (!schemeOk) throw invalidField(["body", "repo"], "repo must be an https URL");
	if (url.username || url.password) throw invalidField(["body", "repo"], "repo must not carry credentials; send the token as `token`");
	url.hash = "";
	return url.toString();
}

const gitAnswer = (contentType: string, description: string) => ({ content: { [contentType]: { schema: z.string() } }, description });

agentWorkspaceGitRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workspace/repo.git/info/refs",
		request: { query: z.object({ service: z.string().optional() }) },
		responses: {
			200: gitAnswer("application/x-git-upload-pack-advertisement", "git smart HTTP: the refs of the active workspace"),
			...errors,
		},
	}),
	(c) => exportRequest(c, "info/refs"),
);

agentWorkspaceGitRoutes.openapi(
	createRoute({
		method: "post",
		path: "/workspace/repo.git/git-upload-pack",
		responses: {
			200: gitAnswer("application/x-git-upload-pack-result", "git smart HTTP: a packfile of what the client wants"),
			...errors,
		},
	}),
	(c) => exportRequest(c, "git-upload-pack"),
);

/** Hands a git request to the caller's active workspace, which answers it from its repository. */
async function exportRequest(c: Context<AppEnv>, what: "info/refs" | "git-upload-pack"): Promise<Response> {
	const workspace = await activeWorkspace(c.env, userOf(c));
	const incoming = new URL(c.req.url);
	const forwarded = new Request(`https://workspace/repo.git/${what}${incoming.search}`, {
		method: c.req.method,
		headers: { "content-type": c.req.header("content-type") ?? "application/octet-stream" },
		body: c.req.method === "POST" ? await requestBody(c.req.raw, setting(c.env, "MAX_BODY_BYTES")) : undefined,
	});
	return workspaceObject(c.env, workspace).fetch(forwarded);
}

/**
 * The request's bytes. Git gzips an upload-pack request past 1 KiB (many `have` lines); the
 * unpacked size is capped like any body, so a small bomb cannot make a large one.
 */
async function requestBody(request: Request, maxBytes: number): Promise<Uint8Array> {
	const encoding = request.headers.get("content-encoding")?.toLowerCase();
	if (!request.body || (encoding !== "gzip" && encoding !== "x-gzip")) return new Uint8Array(await request.arrayBuffer());
	let bytes: Uint8Array | null;
	try {
		bytes = await readCappedBytes(new Response(request.body.pipeThrough(new DecompressionStream("gzip"))), maxBytes);
	} catch {
		throw new ApiError(400, "The request body is not valid gzip");
	}
	if (!bytes) throw new ApiError(413, "Request body too large");
	return bytes;
}
