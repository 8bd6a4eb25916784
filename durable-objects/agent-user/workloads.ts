import type { AgentCaller } from "../../src/agent/caller";
import { callerMode } from "../../src/agent/caller";
import { effectiveMode, type Invocation, type WorkloadOutcome } from "../../src/agent/envelopes";
import type { AgentFrame, AgentFrameBody, LoggedFrame } from "../../src/agent/frames";
import { isRetryable } from "../../src/agent/model-client";
import { resolveAgentModel } from "../../src/agent/model-settings";
import { isOwnFile, type Taint } from "../../src/agent/taint";
import { AGENT_TOOL_NAMES } from "../../src/agent/tools";
import { unitWorkspaces, workedWorkspace } from "../../src/agent/unit-workspaces";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { workspaceObject } from "../../src/objects";
import { sha256Hex } from "../../src/sha256";
import { normalizePath } from "../../src/workspace/paths";
import { type AgentStore, type WorkloadRow, workloadSession } from "./store";
import type { TurnResult, TurnStart } from "./turns";

/** How many of a workload's last frames its status shows. */
const WORKLOAD_EVENTS = 50;

export interface WorkloadView {
	workload_id: string;
	status: string;
	trigger: string;
	mode: string;
	launcher: string;
	context: Invocation["context"] | null;
	runs: number;
	created_at: string;
	updated_at: string;
	last: { ok: boolean; detail: string | null; reply: string | null } | null;
	events: AgentFrame[];
}

/** A workload's id: a session start is that chat session's workload; others are named by what they start. */
export async function workloadIdOf(userId: number, invocation: Invocation): Promise<string> {
	if ("session" in invocation.start) return `agent-${userId}-chat-${invocation.start.session.ref}`;
	return `agent-${userId}-${invocation.trigger}-${await sha256Hex(JSON.stringify(invocation.start), 6)}`;
}

/** What a workload is about, for the model: who started it and on what. */
function focusOf(row: WorkloadRow, invocation: Invocation): string {
	const parts = [`a ${row.trigger} run started by ${row.launcher}, not a message typed by the user now`];
	const meeting = invocation.context?.meeting;
	if (meeting)
		parts.push(`meeting ${meeting.meeting_id} (session ${meeting.session_uid}${meeting.platform ? `, ${meeting.platform}` : ""})`);
	if (invocation.context?.ref) parts.push(`source ${invocation.context.ref.uri}`);
	return parts.join("; ");
}

/** What a workload needs of the runtime: a turn started for it, or a refusal logged as a turn's frames. */
export interface WorkloadTurns {
	startTurn(turnId: string, start: TurnStart): Promise<TurnResult>;
	logRefusal(session: string, workloadId: string | null, bodies: AgentFrameBody[]): LoggedFrame[];
}

/** What the workload's turn is asked: its session and prompt, and why that prompt is someone else's text (a plan file they wrote). */
type Plan = { ok: true; session: string; prompt: string; taint: Taint } | { ok: false; detail: string };

/**
 * Workloads: invocations run to their end in the object, whoever listens. Each start stores its
 * inputs; a start while a run is going marks one more run, which takes the freshest inputs.
 */
export class AgentWorkloads {
	/** The run loop of each workload running now. */
	private readonly loops = new Map<string, Promise<WorkloadOutcome>>();
	/** The caller of each workload's latest start: a rerun acts with its rights. */
	private readonly callers = new Map<string, AgentCaller>();

	constructor(
		private readonly turns: WorkloadTurns,
		private readonly store: AgentStore,
		private readonly env: Env,
	) {}

	async dispatch(caller: AgentCaller, invocation: Invocation): Promise<{ workload_id: string }> {
		const workloadId = await this.accept(caller, invocation);
		this.ensureRunning(workloadId).catch((err) => console.error("workload run", errorName(err)));
		return { workload_id: workloadId };
	}

	async runInvocation(caller: AgentCaller, invocation: Invocation): Promise<WorkloadOutcome> {
		return this.ensureRunning(await this.accept(caller, invocation));
	}

	view(workloadId: string): WorkloadView | null {
		const row = this.store.workload(workloadId);
		if (!row) return null;
		return {
			workload_id: row.workload_id,
			status: row.status,
			trigger: row.trigger,
			mode: row.mode,
			launcher: row.launcher,
			context: row.context ? JSON.parse(row.context) : null,
			runs: row.runs,
			created_at: new Date(row.created).toISOString(),
			updated_at: new Date(row.updated).toISOString(),
			last: row.last_ok === null ? null : { ok: row.last_ok === 1, detail: row.last_detail, reply: row.last_reply },
			events: this.store.workloadEvents(workloadId, WORKLOAD_EVENTS).map((l) => l.frame),
		};
	}

	private async accept(caller: AgentCaller, invocation: Invocation): Promise<string> {
		const workloadId = await workloadIdOf(caller.userId, invocation);
		this.store.upsertWorkload({
			workloadId,
			trigger: invocation.trigger,
			mode: callerMode(caller, effectiveMode(invocation)),
			launcher: invocation.identity.launcher,
			context: invocation.context,
			start: invocation.start,
			invocation,
			now: Date.now(),
		});
		this.callers.set(workloadId, caller);
		return workloadId;
	}

	/** The workload's run loop: the one going (which will run again for this start), or a new one. */
	private ensureRunning(workloadId: string): Promise<WorkloadOutcome> {
		const going = this.loops.get(workloadId);
		if (going) return going;
		const loop = this.loop(workloadId);
		this.loops.set(workloadId, loop);
		return loop;
	}

	private async loop(workloadId: string): Promise<WorkloadOutcome> {
		try {
			for (;;) {
				const row = this.store.beginWorkloadRun(workloadId, Date.now());
				const { outcome, reply } = await this.runOnce(row);
				const again = this.store.endWorkloadRun(workloadId, { ok: outcome.ok, detail: outcome.detail ?? null, reply }, Date.now());
				// Leaves the map in the same step that saw no rerun pending, so a start right after begins a new loop.
				if (!again) {
					this.loops.delete(workloadId);
					return { ...outcome, reply };
				}
			}
		} catch (err) {
			this.loops.delete(workloadId);
			console.error("workload failed", errorName(err));
			const detail = "The workload failed unexpectedly";
			this.store.endWorkloadRun(workloadId, { ok: false, detail, reply: null }, Date.now());
			return { workload_id: workloadId, ok: false, detail, retryable: true };
		}
	}

	private async plan(row: WorkloadRow, invocation: Invocation, workspace: string | null, userId: number): Promise<Plan> {
		if ("session" in invocation.start) {
			const session = invocation.start.session.ref;
			if (!this.store.session(session)) return { ok: false, detail: `Session "${session}" does not exist` };
			return { ok: true, session, prompt: "Continue this session where it left off.", taint: null };
		}
		const { inline, path } = invocation.start.entrypoint;
		if (inline) return { ok: true, session: workloadSession(row.workload_id), prompt: inline, taint: null };
		if (path) return this.planFile(row, path, workspace, userId);
		return { ok: false, detail: "The invocation has nothing to run: no inline prompt and no plan file" };
	}

	/** A plan file of the workspace the workload works on: its text is the prompt. */
	private async planFile(row: WorkloadRow, path: string, workspace: string | null, userId: number): Promise<Plan> {
		if (!workspace) return { ok: false, detail: "A plan file needs a workspace, and this workload names none" };
		const checked = normalizePath(path);
		if (!checked.ok) return { ok: false, detail: `Plan file "${path.slice(0, 200)}": ${checked.problem}` };
		const stub = workspaceObject(this.env, workspace);
		const [file, writers] = await Promise.all([stub.read(checked.path), stub.writers([checked.path])]);
		if (!file) return { ok: false, detail: `Plan file "${path.slice(0, 200)}" not found in the workspace` };
		if (!file.content.trim()) return { ok: false, detail: `Plan file "${path.slice(0, 200)}" is empty` };
		const own = isOwnFile(workspace, userId, checked.path, writers[checked.path]);
		const taint = own ? null : `the plan file ${checked.path.slice(0, 200)} is text other people wrote`;
		return { ok: true, session: workloadSession(row.workload_id), prompt: file.content, taint };
	}

	private async runOnce(row: WorkloadRow): Promise<{ outcome: WorkloadOutcome; reply: string | null }> {
		const workloadId = row.workload_id;
		const fail = (detail: string, retryable: boolean) => ({
			outcome: { workload_id: workloadId, ok: false, detail, retryable },
			reply: null,
		});
		const invocation = JSON.parse(row.invocation) as Invocation;
		const caller = this.callers.get(workloadId);
		if (!caller) return fail("The workload lost its caller", false);
		// Checked again at each run: a membership may have ended since the dispatch.
		const named = await unitWorkspaces(this.env, caller.userId, invocation);
		if (!named.ok) return fail(named.detail, false);
		const workspace = workedWorkspace(invocation, named.names);
		const plan = await this.plan(row, invocation, workspace, caller.userId);
		if (!plan.ok) return fail(plan.detail, false);

		const model = await resolveAgentModel(this.env, caller.userId);
		if (!model.ok) {
			this.turns.logRefusal(plan.session, workloadId, [{ type: "error", message: model.message }]);
			return fail(model.message, false);
		}
		if (this.store.runningTurn(plan.session)) return fail(`Session "${plan.session}" is busy with another turn`, true);
		const result = await this.turns.startTurn(`turn_${crypto.randomUUID().replaceAll("-", "")}`, {
			caller,
			session: plan.session,
			prompt: plan.prompt,
			focus: focusOf(row, invocation),
			nonce: null,
			workloadId,
			mode: row.mode === "rw" ? "rw" : "ro",
			endpoint: model.endpoint,
			workspace,
			// A name no tool has grants nothing (reported in the 202), so the turn is told only real ones.
			tools: invocation.tools?.filter((name) => AGENT_TOOL_NAMES.includes(name)) ?? null,
			taint: plan.taint,
		});
		return {
			outcome: {
				workload_id: workloadId,
				ok: result.ok,
				...(result.detail ? { detail: result.detail } : {}),
				retryable: !result.ok && result.failure !== null && isRetryable(result.failure),
			},
			reply: result.reply,
		};
	}
}
