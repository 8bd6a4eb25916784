import type { Env } from "../env";
import { sha256Hex } from "../sha256";
import { attachedWorkspace, homeWorkspace } from "./workspace-names";

/**
 * Raw SQL store (its table is not in the drizzle schema; parking and attaching are one D1 batch).
 * Which workspace is a user's active one, and which are parked (migrations/0007): the home
 * workspace, or an external repository attached with `swap` and cloned into its own Workspace
 * object. Rows hold the repository address without credentials; the home workspace has no row
 * and is active whenever no row is.
 */

/** A workspace as `GET /workspace/attached` shows it. */
export interface WorkspaceView {
	workspace: string;
	kind: "home" | "repo";
	/** The attached repository's address (never with credentials); null for the home workspace. */
	repo: string | null;
	ref: string | null;
}

export interface Attachments {
	active: WorkspaceView;
	parked: WorkspaceView[];
}

interface AttachmentRow {
	workspace: string;
	repo: string;
	ref: string;
	active: number;
}

const homeView = (userId: number): WorkspaceView => ({ workspace: homeWorkspace(userId), kind: "home", repo: null, ref: null });
const repoView = (row: AttachmentRow): WorkspaceView => ({ workspace: row.workspace, kind: "repo", repo: row.repo, ref: row.ref });

/** The name of the caller's active workspace: the one every workspace route and the agent use. */
export async function activeWorkspace(env: Env, userId: number): Promise<string> {
	const row = await env.DB.prepare("SELECT workspace FROM agent_workspaces WHERE user_id = ? AND active = 1")
		.bind(userId)
		.first<{ workspace: string }>();
	return row?.workspace ?? homeWorkspace(userId);
}

/** The active workspace and the parked ones (home first, then the newest attachment first). */
export async function listAttachments(env: Env, userId: number): Promise<Attachments> {
	const { results } = await env.DB.prepare(
		"SELECT workspace, repo, ref, active FROM agent_workspaces WHERE user_id = ? ORDER BY attached_at DESC, workspace",
	)
		.bind(userId)
		.all<AttachmentRow>();
	const active = results.find((row) => row.active === 1);
	const parked = results.filter((row) => row.active !== 1).map(repoView);
	return active ? { active: repoView(active), parked: [homeView(userId), ...parked] } : { active: homeView(userId), parked };
}

/** One repository at one ref is one workspace: attaching it again restores the same clone. */
export async function attachmentFor(userId: number, repo: string, ref: string): Promise<string> {
	return attachedWorkspace(userId, await sha256Hex(`${repo}#${ref}`, 8));
}

/** Whether `workspace` is already one of the user's attachments (a clone that can be restored). */
export async function isAttached(env: Env, userId: number, workspace: string): Promise<boolean> {
	const row = await env.DB.prepare("SELECT 1 AS found FROM agent_workspaces WHERE user_id = ? AND workspace = ?")
		.bind(userId, workspace)
		.first<{ found: number }>();
	return row !== null;
}

/**
 * Makes `target` the active workspace and parks the rest; `null` makes the home workspace
 * active. One batch, so a user never has two active workspaces or none recorded half-way.
 */
export async function activate(
	env: Env,
	userId: number,
	target: { workspace: string; repo: string; ref: string } | null,
	now = new Date(),
): Promise<void> {
	const park = env.DB.prepare("UPDATE agent_workspaces SET active = 0 WHERE user_id = ? AND active = 1").bind(userId);
	if (!target) {
		await env.DB.batch([park]);
		return;
	}
	const attach = env.DB.prepare(
		`INSERT INTO agent_workspaces (user_id, workspace, repo, ref, active, attached_at) VALUES (?, ?, ?, ?, 1, ?)
		 ON CONFLICT (user_id, workspace) DO UPDATE SET active = 1`,
	).bind(userId, target.workspace, target.repo, target.ref, now.toISOString());
	await env.DB.batch([park, attach]);
}
