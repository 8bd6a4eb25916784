import type { AgentCaller } from "../../src/agent/caller";
import type { AgentFrameBody, Finding } from "../../src/agent/frames";
import { clip } from "../../src/agent/tool-definition";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { workspaceObject } from "../../src/objects";
import { commitAuthorOf } from "../../src/workspace/author";
import type { FileChange } from "../../src/workspace/workspace-types";

/** A commit message is the reply's first line, cut to git's customary subject length. */
const MESSAGE_CHARS = 72;
const FALLBACK_MESSAGE = "agent turn";

/** Brings the user's routines in line with a workspace's `routines/` files; what it found wrong. */
export type RoutineFileSync = (caller: AgentCaller, workspace: string) => Promise<Finding[]>;

export function commitMessage(reply: string): string {
	const line =
		reply
			.split("\n")
			.find((l) => l.trim())
			?.trim() ?? "";
	return line ? clip(line, MESSAGE_CHARS) : FALLBACK_MESSAGE;
}

/** What a `rw` turn lands in one commit: its staged changes to its workspace, and whether it had read other people's words. */
export interface TurnCommit {
	workspace: string;
	changes: FileChange[];
	message: string;
	tainted: boolean;
}

/**
 * A `rw` turn's one commit: what it staged, by the user, as the agent (so governance applies
 * again in the workspace). Emits `commit{sha}` or `rejected{violations}`; null when it landed
 * (or there was nothing to land), else why not, for the turn's `done`.
 */
export async function commitTurn(
	env: Env,
	caller: AgentCaller,
	turn: TurnCommit,
	emit: (frame: AgentFrameBody) => void,
	syncRoutines: RoutineFileSync,
): Promise<string | null> {
	const { changes, workspace } = turn;
	if (changes.length === 0) return null;
	try {
		const outcome = await workspaceObject(env, workspace).commit({
			changes,
			message: turn.message,
			author: await commitAuthorOf(env, caller.userId),
			by: "agent",
			authorId: caller.userId,
			tainted: turn.tainted,
		});
		if (!outcome.ok) {
			emit({ type: "rejected", violations: outcome.violations });
			return "The workspace refused the turn's file changes; nothing was committed";
		}
		if (outcome.sha === null) return null;
		const findings: Finding[] = [...outcome.findings];
		if (outcome.routinesTouched) findings.push(...(await syncedRoutines(syncRoutines, caller, workspace)));
		emit({ type: "commit", sha: outcome.sha, ...(findings.length ? { findings } : {}) });
		return null;
	} catch (err) {
		console.error("agent commit failed", errorName(err));
		return "The turn's file changes could not be committed; try again";
	}
}

/** The commit has landed: a failed routine sync is a finding on it, not a failed commit. */
async function syncedRoutines(sync: RoutineFileSync, caller: AgentCaller, workspace: string): Promise<Finding[]> {
	try {
		return await sync(caller, workspace);
	} catch (err) {
		console.error("routine files sync failed", errorName(err));
		return [{ path: "routines/", problem: "the routine files could not be read; they are synced again on the next commit" }];
	}
}
