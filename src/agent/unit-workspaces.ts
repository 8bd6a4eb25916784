import type { Env } from "../env";
import { isWorkspaceMember } from "../meetings/meeting-store";
import { activeWorkspace } from "../workspace/attachments";
import { homeWorkspace, sharedWorkspace } from "../workspace/workspace-names";
import { effectiveMode, type Invocation } from "./envelopes";

/**
 * Which workspaces a `unit.v1` invocation may name (docs/agent.md#invocations). The envelope's
 * `workspaces[].id` is the client's word, so each one is checked against the caller:
 *
 * - `home` or `home:<their user id>`: their home workspace;
 * - their subject (`<their user id>`, as events and routines name it) or `active`: their active
 *   workspace (home, or the repository they swapped in);
 * - `repo:<their user id>:<key>`: one of their attached repositories;
 * - `shared:<workspace_id>` or a bare `<workspace_id>`: a shared workspace they are a member of.
 *
 * Anything else (another user's home or repository, a workspace they are not a member of) is
 * refused, and nothing runs.
 */
export type UnitWorkspaces = { ok: true; names: string[] } | { ok: false; detail: string };

async function nameOf(env: Env, userId: number, id: string): Promise<string | null> {
	const own = String(userId);
	if (id === "home" || id === homeWorkspace(userId)) return homeWorkspace(userId);
	if (id === own || id === "active") return activeWorkspace(env, userId);
	if (id.startsWith(`repo:${own}:`) && id.length > `repo:${own}:`.length) return id;
	// Another user's home or repository is never a shared workspace's name.
	if (id.startsWith("home:") || id.startsWith("repo:")) return null;
	const shared = id.startsWith("shared:") ? id.slice("shared:".length) : id;
	if (!shared || !(await isWorkspaceMember(env, userId, shared))) return null;
	return sharedWorkspace(shared);
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
