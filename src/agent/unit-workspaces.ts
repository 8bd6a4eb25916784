import { eq } from "drizzle-orm";
import { db } from "../db";
import { workspaceMembers } from "../db/schema";
import type { Env } from "../env";
import { isWorkspaceMember } from "../meetings/meeting-store";
import { activeWorkspace } from "../workspace/attachments";
import { homeWorkspace, sharedWorkspace } from "../workspace/workspace-names";
import { effectiveMode, type Invocation } from "./envelopes";

/**
 * Drizzle store: the memberships a `unit.v1` invocation's workspaces are checked against.
 * Which workspaces a `unit.v1` invocation may name (docs/agent.md#invocations). The envelope's
 * `workspaces[].id` is the client's word, so each one is checked against the caller:
 *
 * - `home` or `home:<their user id>`: their home workspace;
 * - their subject (`<their user id>`, as events and routines name it) or `active`: their active
 *   workspace (home, or the repository they swapped in);
 * - `repo:<their user id>:<key>`: one of their attached repositories;
 * - `shared:<workspace_id>` or a bare `<workspace_id>`: a shared workspace they are a member of;
 * - any other id that names no workspace of anyone (the reference's `u_jane`): their active
 *   workspace, as the reference mounts the subject's own whatever the id says.
 *
 * What names someone else's (another user's home, repository or subject, a shared workspace
 * they are not a member of) is refused, and nothing runs.
 */
export type UnitWorkspaces = { ok: true; names: string[] } | { ok: false; detail: string };

async function nameOf(env: Env, userId: number, id: string): Promise<string | null> {
	const own = String(userId);
	if (id === "home" || id === homeWorkspace(userId)) return homeWorkspace(userId);
	if (id === own || id === "active") return activeWorkspace(env, userId);
	if (id.startsWith(`repo:${own}:`) && id.length > `repo:${own}:`.length) return id;
	// Another user's home or repository is never a shared workspace's name, nor anyone's but theirs.
	if (id.startsWith("home:") || id.startsWith("repo:")) return null;
	const shared = id.startsWith("shared:") ? id.slice("shared:".length) : id;
	if (shared && (await isWorkspaceMember(env, userId, shared))) return sharedWorkspace(shared);
	// A number is a subject: another user's (whether or not that user exists, so the answer tells nothing).
	if (/^[0-9]+$/.test(id)) return null;
	if (shared && (await workspaceHasMembers(env, shared))) return null;
	return activeWorkspace(env, userId);
}

/** Whether a shared workspace has anyone in it: an id nobody is a member of names no workspace. */
async function workspaceHasMembers(env: Env, workspaceId: string): Promise<boolean> {
	const row = await db(env)
		.select({ userId: workspaceMembers.userId })
		.from(workspaceMembers)
		.where(eq(workspaceMembers.workspaceId, workspaceId))
		.limit(1)
		.get();
	return row !== undefined;
}

/** The workspace object names the invocation's `workspaces[]` stand for, or why the caller may not use one. */
export async function unitWorkspaces(env: Env, userId: number, invocation: Invocation): Promise<UnitWorkspaces> {
	const names: string[] = [];
	for (const { id } of invocation.workspaces) {
		const name = await nameOf(env, userId, id);
		if (name === null) {
			const shown = id.length > 100 ? `${id.slice(0, 100)}…` : id;
			return {
				ok: false,
				detail: `Workspace "${shown}" is not yours: name your own (home, active, your subject ${userId}, repo:${userId}:<key>) or a shared workspace you are a member of`,
			};
		}
		names.push(name);
	}
	return { ok: true, names };
}

/**
 * The one workspace a workload works on: the first it asked to write when it runs `rw`,
 * else the first it names.
 */
export function workedWorkspace(invocation: Invocation, names: string[]): string | null {
	if (effectiveMode(invocation) === "rw") {
		const writable = invocation.workspaces.findIndex((w) => w.mode === "rw");
		if (writable >= 0) return names[writable] ?? null;
	}
	return names[0] ?? null;
}
