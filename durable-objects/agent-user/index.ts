import { DurableObject } from "cloudflare:workers";
import { agentLimits } from "../../src/agent/agent-limits";
import { type AgentCaller, callerAsKeyStandsNow } from "../../src/agent/caller";
import type { ChatRequest } from "../../src/agent/chat-request";
import type { Invocation, WorkloadOutcome } from "../../src/agent/envelopes";
import type { MeetingEvent } from "../../src/agent/routine-invocations";
import type { RoutineView } from "../../src/agent/routine-view";
import type { Env } from "../../src/env";
import type { TimerHandlers } from "../shared/alarm-timers";
import type { ActionView, Decision } from "./actions";
import { RoutineFiles } from "./routine-files";
import type { Reconcile, RoutineInput } from "./routine-records";
import { Routines } from "./routines";
import { AgentRuntime, HEARTBEAT_TIMER, type HistoryTurn, type SessionItem } from "./runtime";
import { type AgentTimer, agentTimers } from "./timers";
import type { WorkloadView } from "./workloads";

export type { AgentCaller } from "../../src/agent/caller";
export type { ChatRequest } from "../../src/agent/chat-request";

/** The RPC surface: what Workers call on a user's agent stub (alarm is the runtime's). */
export const AGENT_USER_RPC = [
	"chat",
	"dispatch",
	"runInvocation",
	"workload",
	"sessions",
	"history",
	"resetSession",
	"createRoutine",
	"listRoutines",
	"setRoutineEnabled",
	"deleteRoutine",
	"meetingEvent",
	"listActions",
	"decideAction",
] as const;

/**
 * One per user (`idFromName(userId)`): the agent control plane of that user. It holds chat
 * sessions, turns, the event log every SSE stream reads, workloads, and routines, and runs the
 * tool loop itself. Its one alarm (timers.ts) serves every routine, turn heartbeat and retry.
 * The runtime (runtime.ts) and the routines (routines.ts) do the work.
 */
export class AgentUser extends DurableObject<Env> {
	readonly #timers = agentTimers(this.ctx.storage);
	readonly #limits = agentLimits(this.env);
	/** Chat turns, sessions, workloads (runtime.ts). */
	readonly #runtime = new AgentRuntime(this.ctx.storage, this.env, this.#timers, (caller, workspace) =>
		this.#routineFiles.sync(caller, workspace),
	);
	/** Saved prompts run on cron times and meeting events (routines.ts). */
	readonly #routines = new Routines(
		this.ctx.storage,
		this.#timers,
		(caller, invocation) => this.runInvocation(caller, invocation),
		(caller) => callerAsKeyStandsNow(this.env, caller),
	);
	/** Routines kept as `routines/<name>.md` files, synced after a commit touches them (routine-files.ts). */
	readonly #routineFiles = new RoutineFiles(
		this.ctx.storage,
		this.env,
		this.#routines,
		this.#limits.maxRoutines,
		this.#limits.cronFloorMinutes,
	);
	/** What the one alarm runs for each kind of timer (timers.ts). */
	readonly #timerHandlers: TimerHandlers<AgentTimer> = {
		[HEARTBEAT_TIMER]: () => this.#runtime.heartbeat(),
		...this.#routines.timerHandlers,
	};

	/** A chat turn as an SSE stream: a new turn, or a reattach (`lastEventId`, a repeated `turnId`). */
	async chat(caller: AgentCaller, request: ChatRequest): Promise<Response> {
		return this.#runtime.chat(caller, request);
	}

	async dispatch(caller: AgentCaller, invocation: Invocation): Promise<{ workload_id: string }> {
		return this.#runtime.dispatch(caller, invocation);
	}

	/** Runs an invocation to its end and says how it ended (routines use it; dispatch does not wait). */
	async runInvocation(caller: AgentCaller, invocation: Invocation): Promise<WorkloadOutcome> {
		return this.#runtime.runInvocation(caller, invocation);
	}

	/** A workload's status, inputs' summary, last outcome and last frames; null when unknown. */
	async workload(workloadId: string): Promise<WorkloadView | null> {
		return this.#runtime.workloads.view(workloadId);
	}

	/** The chat sessions; with `withWorkloads`, the `wl-…` sessions of workload runs too. */
	async sessions(withWorkloads = false): Promise<SessionItem[]> {
		return this.#runtime.sessions(withWorkloads);
	}

	async history(session: string): Promise<HistoryTurn[]> {
		return this.#runtime.history(session);
	}

	async resetSession(session: string): Promise<void> {
		this.#runtime.resetSession(session);
	}

	/** A routine the user asked for; `refused` when it would pass their routine quota (nothing is made then). */
	async createRoutine(
		caller: AgentCaller,
		input: RoutineInput,
	): Promise<{ routine: RoutineView; job_id: string | null; ran_now: boolean } | { refused: string }> {
		const refused = this.#routines.refusal(input.name, this.#limits.maxRoutines);
		if (refused) return { refused };
		return this.#routines.create(caller, input);
	}

	async listRoutines(): Promise<RoutineView[]> {
		return this.#routines.list();
	}

	/** null when the user has no routine of that name. */
	setRoutineEnabled(caller: AgentCaller, name: string, enabled: boolean): Promise<Reconcile | null> {
		return this.#routines.setEnabled(caller.userId, name, enabled);
	}

	/** false when the user has no routine with that id. */
	deleteRoutine(routineId: string): Promise<boolean> {
		return this.#routines.remove(routineId);
	}

	/** One of the user's meetings reached an event (`meeting.completed`): their event routines run for it. */
	meetingEvent(event: MeetingEvent): Promise<{ queued: number }> {
		return this.#routines.meetingEvent(event);
	}

	/** What tainted turns were not allowed to do on their own, newest first (actions.ts). */
	async listActions(): Promise<ActionView[]> {
		return this.#runtime.actions.list();
	}

	/** The user confirms (it runs now, with this caller's rights) or refuses a held action. */
	decideAction(caller: AgentCaller, actionId: string, confirmed: boolean): Promise<Decision> {
		return this.#runtime.actions.decide(caller, actionId, confirmed);
	}

	override async alarm(): Promise<void> {
		await this.#timers.fire(this.#timerHandlers);
	}
}
