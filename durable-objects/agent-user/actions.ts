import { type AgentCaller, callerMode } from "../../src/agent/caller";
import type { AgentFrameBody } from "../../src/agent/frames";
import { clip } from "../../src/agent/tool-definition";
import { runToolCall } from "../../src/agent/tools";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { isWorkspaceMember } from "../../src/meetings/meeting-store";
import type { FileChange } from "../../src/workspace/workspace-types";
import { commitTurn, type RoutineFileSync, type TurnCommit } from "./commits";
import { AGENT_USER_STORAGE } from "./storage";

const TABLE = AGENT_USER_STORAGE.tables.heldActions;

/** At most this many actions wait at once; a tainted turn's next outward call is refused instead of held. */
export const MAX_HELD_ACTIONS = 50;
/** A held commit keeps its changes here until decided: past this many characters it is refused instead. */
const MAX_HELD_COMMIT_CHARS = 1_000_000;
export const INTERRUPTED = "The action was interrupted while it ran; check whether it happened before doing it again yourself";
/** The list shows at most this many, newest first. */
const LISTED_ACTIONS = 100;

/** What a tainted turn wanted to do where others see it (src/agent/taint.ts). */
export type HeldAction = { kind: "tool"; tool: string; args: Record<string, unknown> } | { kind: "commit"; commit: TurnCommit };

/** A JSON object, as stored: typed so it crosses the object's RPC boundary (an `unknown` there erases the whole view). */
type Json = object;

export type ActionStatus = "pending" | "confirming" | "done" | "failed" | "refused";

/** An action as `GET /agent/actions` shows it (src/routes/agent-actions.ts `HeldActionView`). */
export interface ActionView {
	action_id: string;
	kind: "tool" | "commit";
	/** The tool the turn called; null for a commit. */
	tool: string | null;
	/** The call's arguments; for a commit, the workspace, the message and the files it changes. */
	args: Json;
	summary: string;
	/** Why it was held: what brought other people's words into the turn. */
	reason: string;
	session: string;
	turn_id: string;
	workload_id: string | null;
	status: ActionStatus;
	created_at: string;
	decided_at: string | null;
	/** What running it gave (the tool's result, or the commit's sha and findings); null until it ran. */
	result: Json | null;
	/** Why it failed; null otherwise. */
	detail: string | null;
}

interface ActionRow extends Record<string, SqlStorageValue> {
	id: string;
	kind: "tool" | "commit";
	tool: string | null;
	action: string;
	summary: string;
	reason: string;
	session: string;
	turn_id: string;
	workload_id: string | null;
	status: ActionStatus;
	created: number;
	decided: number | null;
	result: string | null;
	detail: string | null;
}

/** Where a held action came from. */
export interface HeldIn {
	session: string;
	turnId: string;
	workloadId: string | null;
	reason: string;
}

/** The decision's answer: 200 with the action as it stands now, or 404 or 409 with why not. */
export interface Decision {
	status: 200 | 404 | 409;
	detail: string | null;
	action: ActionView | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function shownArgs(action: HeldAction): Json {
	if (action.kind === "tool") return action.args;
	const { workspace, message, changes } = action.commit;
	return { workspace, message, files: changes.map((change: FileChange) => change.path) };
}

function view(row: ActionRow): ActionView {
	const action = JSON.parse(row.action) as HeldAction;
	return {
		action_id: row.id,
		kind: row.kind,
		tool: row.tool,
		args: shownArgs(action),
		summary: row.summary,
		reason: row.reason,
		session: row.session,
		turn_id: row.turn_id,
		workload_id: row.workload_id,
		status: row.status,
		created_at: iso(row.created) as string,
		decided_at: iso(row.decided),
		result: row.result === null ? null : (JSON.parse(row.result) as Json),
		detail: row.detail,
	};
}

/**
 * The actions tainted turns were not allowed to take on their own (docs/agent.md#text-other-people-wrote):
 * kept in the user's agent object until the user confirms one (it runs then, with the confirming
 * key's rights) or refuses it (it never runs). Like a routine file waiting for confirmation
 * (routines.ts), nothing here happens without the user saying so.
 */
export class HeldActions {
	constructor(
		private readonly sql: SqlStorage,
		private readonly env: Env,
		private readonly syncRoutines: RoutineFileSync,
	) {
		sql.exec(
			`CREATE TABLE IF NOT EXISTS ${TABLE} (id TEXT PRIMARY KEY, kind TEXT NOT NULL, tool TEXT, action TEXT NOT NULL,
			summary TEXT NOT NULL, reason TEXT NOT NULL, session TEXT NOT NULL, turn_id TEXT NOT NULL, workload_id TEXT,
			status TEXT NOT NULL, created INTEGER NOT NULL, decided INTEGER, result TEXT, detail TEXT)`,
		);
		// One confirming when the object starts was cut off mid-run: whether it acted is unknown, so it is not run again.
		sql.exec(`UPDATE ${TABLE} SET status = 'failed', decided = ?, detail = ? WHERE status = 'confirming'`, Date.now(), INTERRUPTED);
	}

	/** Keeps an action for the user's decision; why not, when too many wait or it is too large to keep. */
	hold(action: HeldAction, summary: string, from: HeldIn): { ok: true; action: ActionView } | { ok: false; detail: string } {
		const waiting = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE status = 'pending'`).one().n;
		if (waiting >= MAX_HELD_ACTIONS)
			return { ok: false, detail: `${MAX_HELD_ACTIONS} actions already wait for the user's confirmation; decide those first` };
		const stored = JSON.stringify(action);
		if (action.kind === "commit" && stored.length > MAX_HELD_COMMIT_CHARS)
			return { ok: false, detail: "The changes are too large to hold for confirmation; nothing was committed" };
		const id = `act_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
		this.sql.exec(
			`INSERT INTO ${TABLE} (id, kind, tool, action, summary, reason, session, turn_id, workload_id, status, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
			id,
			action.kind,
			action.kind === "tool" ? action.tool : null,
			stored,
			clip(summary, 200),
			from.reason,
			from.session,
			from.turnId,
			from.workloadId,
			Date.now(),
		);
		return { ok: true, action: view(this.row(id) as ActionRow) };
	}

	list(): ActionView[] {
		return this.sql.exec<ActionRow>(`SELECT * FROM ${TABLE} ORDER BY created DESC, rowid DESC LIMIT ?`, LISTED_ACTIONS).toArray().map(view);
	}

	/**
	 * The user's decision. Confirmed, the action runs now with the confirming key's rights (a key
	 * that cannot act runs nothing); refused, it never runs. Each action is decided once.
	 */
	async decide(caller: AgentCaller, id: string, confirmed: boolean): Promise<Decision> {
		const row = this.row(id);
		if (!row) return { status: 404, detail: "Action not found", action: null };
		if (row.status !== "pending") return { status: 409, detail: `This action was already decided (${row.status})`, action: null };
		if (!confirmed) return { status: 200, detail: null, action: this.settle(id, "refused", null, null) };
		// Marked before the first await, so a second confirmation meanwhile finds it taken.
		this.sql.exec(`UPDATE ${TABLE} SET status = 'confirming' WHERE id = ?`, id);
		try {
			const ran = await this.run(caller, JSON.parse(row.action) as HeldAction);
			return {
				status: 200,
				detail: null,
				action: this.settle(id, ran.ok ? "done" : "failed", ran.ok ? ran.result : null, ran.ok ? null : ran.detail),
			};
		} catch (err) {
			console.error("held action failed", errorName(err));
			return { status: 200, detail: null, action: this.settle(id, "failed", null, "The action failed on our side; try it again yourself") };
		}
	}

	private async run(caller: AgentCaller, action: HeldAction): Promise<{ ok: true; result: unknown } | { ok: false; detail: string }> {
		if (action.kind === "tool") {
			const toolCaller = { env: this.env, userId: caller.userId, scopes: caller.scopes, mode: callerMode(caller, "rw") };
			const outcome = await runToolCall(toolCaller, action.tool, JSON.stringify(action.args));
			return outcome.ok ? { ok: true, result: outcome.result } : { ok: false, detail: outcome.error };
		}
		const { commit } = action;
		const shared = commit.workspace.slice("shared:".length);
		if (!(await isWorkspaceMember(this.env, caller.userId, shared)))
			return { ok: false, detail: "You are no longer a member of that shared workspace; nothing was committed" };
		if (callerMode(caller, "rw") !== "rw") return { ok: false, detail: "This key cannot commit (it needs the bot scope)" };
		const frames: AgentFrameBody[] = [];
		const refused = await commitTurn(this.env, caller, commit, (frame) => frames.push(frame), this.syncRoutines);
		if (refused) {
			const rejected = frames.find((frame) => frame.type === "rejected");
			return { ok: false, detail: rejected ? `${refused}: ${rejected.violations.join("; ")}` : refused };
		}
		const landed = frames.find((frame) => frame.type === "commit");
		return { ok: true, result: landed ? { sha: landed.sha, findings: landed.findings ?? [] } : { sha: null, findings: [] } };
	}

	private settle(id: string, status: ActionStatus, result: unknown, detail: string | null): ActionView {
		this.sql.exec(
			`UPDATE ${TABLE} SET status = ?, decided = ?, result = ?, detail = ? WHERE id = ?`,
			status,
			Date.now(),
			result === null ? null : JSON.stringify(result),
			detail,
			id,
		);
		return view(this.row(id) as ActionRow);
	}

	private row(id: string): ActionRow | null {
		return this.sql.exec<ActionRow>(`SELECT * FROM ${TABLE} WHERE id = ?`, id).toArray()[0] ?? null;
	}
}
