import type { AgentCaller } from "../../src/agent/caller";
import { callerMode } from "../../src/agent/caller";
import type { ChatRequest } from "../../src/agent/chat-request";
import type { Invocation, WorkloadOutcome } from "../../src/agent/envelopes";
import type { AgentFrame, AgentFrameBody, LoggedFrame } from "../../src/agent/frames";
import { resolveAgentModel } from "../../src/agent/model-settings";
import { isSharedWorkspace, type Taint } from "../../src/agent/taint";
import { TurnFiles } from "../../src/agent/turn-files";
import type { Env } from "../../src/env";
import { errorName } from "../../src/error-text";
import { setting } from "../../src/settings/deployment-defaults";
import { activeWorkspace } from "../../src/workspace/attachments";
import { type HeldAction, HeldActions, type HeldIn } from "./actions";
import { commitMessage, commitTurn, type RoutineFileSync, type TurnCommit } from "./commits";
import { AgentStore, type TurnRow } from "./store";
import { AgentStreams } from "./streams";
import type { AgentTimers } from "./timers";
import { type HeldCall, runToolLoop, type TurnResult, type TurnStart } from "./turns";
import { AgentWorkloads } from "./workloads";

/** While any turn runs, this timer fires every 30 s so the object is not evicted mid-turn. */
export const HEARTBEAT_TIMER = "turn-heartbeat" as const;
const HEARTBEAT_MS = 30_000;

export interface SessionItem {
	session: string;
	title: string;
	/** Seconds since the epoch, as the reference's session list has them. */
	created: number;
	last_active: number;
	/** The workload whose run this session is (`wl-<workload id>`); null for a chat. */
	workload_id: string | null;
}

export type HistoryTurn =
	| { role: "user"; text: string }
	| { role: "agent"; text: string; ok: boolean; ops: { label: string; tool: string }[] };

const epochSeconds = (ms: number) => ms / 1000;
const newTurnId = () => `turn_${crypto.randomUUID().replaceAll("-", "")}`;

/**
 * The runtime of one user's agent: chat turns streamed over SSE, sessions and their history,
 * and workloads. Turns run in the object, not in the request that started them, so a turn
 * ends the same whether or not anyone still listens.
 */
export class AgentRuntime {
	readonly store: AgentStore;
	readonly streams: AgentStreams;
	readonly workloads: AgentWorkloads;
	/** What tainted turns wanted to do where others see it, until the user decides (actions.ts). */
	readonly actions: HeldActions;
	/** Turns running in this object now, by id. */
	private readonly running = new Map<string, Promise<TurnResult>>();
	/** Sessions with a chat turn waiting for the running one to end. */
	private readonly waiting = new Set<string>();

	constructor(
		storage: DurableObjectStorage,
		private readonly env: Env,
		private readonly timers: AgentTimers,
		private readonly syncRoutineFiles: RoutineFileSync,
	) {
		this.store = new AgentStore(storage.sql);
		this.actions = new HeldActions(storage.sql, env, syncRoutineFiles);
		this.streams = new AgentStreams(setting(env, "AGENT_SSE_KEEPALIVE_MS"));
		this.workloads = new AgentWorkloads(
			{ startTurn: (turnId, start) => this.#startTurn(turnId, start), logRefusal: (...refusal) => this.#logRefusal(...refusal) },
			this.store,
			env,
		);
		this.recoverInterrupted();
	}

	// Chat

	async chat(caller: AgentCaller, request: ChatRequest): Promise<Response> {
		const { session } = request;
		if (request.lastEventId !== null && request.lastEventId !== undefined) return this.reattachAfter(session, request.lastEventId);
		const retried = request.turnId ? this.store.turnByNonce(session, request.turnId) : null;
		if (retried) return this.reattachTurn(retried);

		const [model, workspace] = await Promise.all([resolveAgentModel(this.env, caller.userId), activeWorkspace(this.env, caller.userId)]);
		// Checked again after the await: the same retry may have started its turn meanwhile.
		const raced = request.turnId ? this.store.turnByNonce(session, request.turnId) : null;
		if (raced) return this.reattachTurn(raced);
		// Refused before dispatch: `error` and `turn-complete` only, no `turn-accepted` (as the reference refuses).
		if (!model.ok) return this.#refuse(session, null, [{ type: "error", message: model.message }]);
		const turnId = newTurnId();
		const start: TurnStart = {
			caller,
			session,
			prompt: request.prompt,
			focus: request.active ?? null,
			nonce: request.turnId ?? null,
			workloadId: null,
			mode: callerMode(caller, "rw"),
			endpoint: model.endpoint,
			workspace,
			tools: null,
			taint: null,
		};
		const busy = this.store.runningTurn(session);
		const current = busy ? this.running.get(busy.turn_id) : undefined;
		// The reference hands a prompt for a busy session to its warm unit, which takes it next: one
		// turn waits here for the running one; another while one waits is refused.
		if (busy && (!current || this.waiting.has(session))) {
			const message = `Session "${session}" is busy with another turn and one more waiting; wait for them to end, or reattach with Last-Event-ID`;
			return this.#refuse(session, null, [{ type: "error", message }]);
		}
		// Subscribed before the turn starts, so its first frame already has a listener.
		const response = this.streams.open([], turnId, { "x-chat-session": session });
		const turn = current ? this.startAfter(current, turnId, start) : this.#startTurn(turnId, start);
		turn.catch((err) => console.error("agent turn", errorName(err)));
		return response;
	}

	/** Starts a turn once the session's running turn has ended; refused in its own stream if another took the session meanwhile. */
	private async startAfter(current: Promise<TurnResult>, turnId: string, start: TurnStart): Promise<TurnResult | null> {
		this.waiting.add(start.session);
		try {
			await current;
		} finally {
			this.waiting.delete(start.session);
		}
		if (this.store.runningTurn(start.session)) {
			this.emit(turnId, start.session, null, { type: "error", message: `Session "${start.session}" is busy with another turn` });
			this.emit(turnId, start.session, null, { type: "turn-complete" });
			return null;
		}
		return this.#startTurn(turnId, start);
	}

	/** Everything the session logged after `seq`, then the session's running turn live, if any. */
	private reattachAfter(requested: string, seq: number): Response {
		const session = this.store.sessionOfEvent(seq) ?? requested;
		const replay = this.store.eventsAfter(session, seq);
		const follow = this.store.runningTurn(session)?.turn_id ?? null;
		return this.streams.open(replay, follow, { "x-chat-session": session });
	}

	/** A retried nonce: that turn from its start, then live if it still runs. */
	private reattachTurn(turn: TurnRow): Response {
		const replay = this.store.turnEvents(turn.turn_id);
		return this.streams.open(replay, turn.status === "running" ? turn.turn_id : null, { "x-chat-session": turn.session });
	}

	/** A turn refused before dispatch: its frames are logged (a reattach sees them too), then the stream ends. */
	#refuse(session: string, workloadId: string | null, bodies: AgentFrameBody[]): Response {
		const logged = this.#logRefusal(session, workloadId, bodies);
		return this.streams.open(logged, null, { "x-chat-session": session });
	}

	#logRefusal(session: string, workloadId: string | null, bodies: AgentFrameBody[]): LoggedFrame[] {
		const turnId = newTurnId();
		const now = Date.now();
		return [...bodies, { type: "turn-complete" } as const].map((body) =>
			this.store.append({ ...body, turn_id: turnId } as AgentFrame, session, workloadId, now),
		);
	}

	// Turns

	/**
	 * Starts a turn: its row and `turn-accepted` are written before this returns, the tool loop
	 * runs on in the object. The promise settles once `turn-complete` is logged.
	 */
	#startTurn(turnId: string, start: TurnStart): Promise<TurnResult> {
		const history = this.store.modelHistory(start.session);
		// The history goes back to the model: other people's words an earlier turn read are in this turn too.
		const taint = start.taint ?? this.store.historyTaint(start.session);
		this.store.startTurn({
			turnId,
			session: start.session,
			workloadId: start.workloadId,
			prompt: start.prompt,
			nonce: start.nonce,
			now: Date.now(),
		});
		const emit = (body: AgentFrameBody) => this.emit(turnId, start.session, start.workloadId, body);
		emit({ type: "turn-accepted", ...(start.nonce ? { nonce: start.nonce } : {}) });
		const run = this.runTurn(turnId, { ...start, taint }, history, emit);
		this.running.set(turnId, run);
		this.keepAlive();
		return run;
	}

	private async runTurn(
		turnId: string,
		start: TurnStart,
		history: TurnResult["messages"],
		emit: (body: AgentFrameBody) => void,
	): Promise<TurnResult> {
		try {
			const files = start.workspace
				? new TurnFiles(this.env, start.workspace, start.caller.userId, (violations) => emit({ type: "rejected", violations }))
				: null;
			const heldIn = (reason: string): HeldIn => ({ session: start.session, turnId, workloadId: start.workloadId, reason });
			const loop = await runToolLoop({
				caller: { env: this.env, userId: start.caller.userId, scopes: start.caller.scopes, mode: start.mode, files, allowed: start.tools },
				endpoint: start.endpoint,
				history,
				prompt: start.prompt,
				focus: start.focus,
				emit,
				now: new Date(),
				taint: start.taint,
				hold: (call) => this.#holdCall(call, heldIn(call.reason), emit),
			});
			// Only a whole `rw` turn lands: a failed one leaves the workspace as it was.
			const commit: TurnCommit | null =
				loop.ok && start.mode === "rw" && files
					? { workspace: files.workspace, changes: files.changes(), message: commitMessage(loop.reply), tainted: loop.taint !== null }
					: null;
			const refused = commit ? await this.#commitOrHold(start.caller, commit, loop.taint, heldIn, emit) : null;
			const result: TurnResult = refused ? { ...loop, ok: false, detail: refused } : loop;
			// The turn's row, `done` and `turn-complete` in one synchronous step: whoever sees the end sees it whole.
			this.store.endTurn(turnId, {
				reply: result.reply,
				ok: result.ok,
				detail: result.detail,
				ops: result.ops,
				messages: result.ok ? result.messages : null,
				taint: result.taint,
				now: Date.now(),
			});
			emit({
				type: "done",
				reply: result.reply,
				sessionId: start.session,
				ok: result.ok,
				...(result.detail ? { detail: result.detail } : {}),
			});
			emit({ type: "turn-complete" });
			this.store.pruneEvents();
			return result;
		} catch (err) {
			// Our own storage failed mid-turn: the turn still ends, so its session is not left busy.
			console.error("agent turn failed", errorName(err));
			const detail = "The turn failed on our side; try again";
			this.store.endTurn(turnId, { reply: "", ok: false, detail, ops: [], messages: null, taint: null, now: Date.now() });
			emit({ type: "done", reply: "", sessionId: start.session, ok: false, detail });
			emit({ type: "turn-complete" });
			return { ok: false, reply: "", detail, failure: null, ops: [], messages: [], taint: null };
		} finally {
			this.running.delete(turnId);
			this.keepAlive();
		}
	}

	/** Keeps an action for the user's decision and says so on the turn's stream. */
	#hold(action: HeldAction, summary: string, from: HeldIn, emit: (body: AgentFrameBody) => void) {
		const held = this.actions.hold(action, summary, from);
		if (held.ok) {
			const { action_id, kind, tool, reason } = held.action;
			emit({ type: "action-held", action_id, kind, tool, summary: held.action.summary, reason });
		}
		return held;
	}

	#holdCall(call: HeldCall, from: HeldIn, emit: (body: AgentFrameBody) => void) {
		const held = this.#hold({ kind: "tool", tool: call.tool, args: call.args }, `${call.tool} ${JSON.stringify(call.args)}`, from, emit);
		return held.ok ? { ok: true as const, actionId: held.action.action_id } : held;
	}

	/**
	 * The turn's commit: landed now, or, when the turn read other people's words and the workspace
	 * is shared (its members see the commit), kept for the user's confirmation. Null when it
	 * landed or waits; else why not, for the turn's `done`.
	 */
	async #commitOrHold(
		caller: AgentCaller,
		commit: TurnCommit,
		taint: Taint,
		heldIn: (reason: string) => HeldIn,
		emit: (body: AgentFrameBody) => void,
	): Promise<string | null> {
		if (taint === null || !isSharedWorkspace(commit.workspace) || commit.changes.length === 0)
			return commitTurn(this.env, caller, commit, emit, this.syncRoutineFiles);
		const files = commit.changes.map((change) => change.path).join(", ");
		const held = this.#hold({ kind: "commit", commit }, `commit to ${commit.workspace}: ${files}`, heldIn(taint), emit);
		return held.ok ? null : held.detail;
	}

	/** Logs a frame first, then sends it to the turn's streams. */
	private emit(turnId: string, session: string, workloadId: string | null, body: AgentFrameBody): void {
		const logged = this.store.append({ ...body, turn_id: turnId } as AgentFrame, session, workloadId, Date.now());
		this.streams.publish(logged);
	}

	/** Sets or clears the heartbeat to match whether a turn runs. */
	private keepAlive(): void {
		const work = this.running.size > 0 ? this.timers.set(HEARTBEAT_TIMER, Date.now() + HEARTBEAT_MS) : this.timers.clear(HEARTBEAT_TIMER);
		work.catch((err: unknown) => console.error("agent heartbeat", errorName(err)));
	}

	/** The heartbeat fired: beat again while a turn runs. */
	async heartbeat(): Promise<void> {
		if (this.running.size > 0) await this.timers.set(HEARTBEAT_TIMER, Date.now() + HEARTBEAT_MS);
	}

	/**
	 * Turns marked running when the object starts were cut off by an eviction or a restart: they
	 * end now as failed, so their streams and history say so instead of waiting forever.
	 */
	private recoverInterrupted(): void {
		const detail = "The turn was interrupted before it finished; send it again";
		for (const turn of this.store.runningTurns()) {
			this.store.endTurn(turn.turn_id, { reply: "", ok: false, detail, ops: [], messages: null, taint: null, now: Date.now() });
			const emit = (body: AgentFrameBody) => this.emit(turn.turn_id, turn.session, turn.workload_id, body);
			emit({ type: "done", reply: "", sessionId: turn.session, ok: false, detail });
			emit({ type: "turn-complete" });
		}
		this.store.failInterruptedWorkloads("The workload was interrupted before it finished", Date.now());
	}

	// Sessions

	/** The chat sessions; with `withWorkloads`, the sessions of workload runs (routines, invocations) too. */
	sessions(withWorkloads = false): SessionItem[] {
		return this.store.sessions(withWorkloads).map((s) => ({
			session: s.name,
			title: s.title,
			created: epochSeconds(s.created),
			last_active: epochSeconds(s.last_active),
			workload_id: s.workload_id,
		}));
	}

	history(session: string): HistoryTurn[] {
		return this.store.turns(session).flatMap((t): HistoryTurn[] => {
			const user: HistoryTurn = { role: "user", text: t.prompt };
			if (t.status !== "done") return [user];
			const ops = t.ops ? (JSON.parse(t.ops) as { label: string; tool: string }[]) : [];
			return [user, { role: "agent", text: t.reply || (t.detail ?? ""), ok: t.ok === 1, ops }];
		});
	}

	resetSession(session: string): void {
		this.store.resetSession(session);
	}

	// Workloads

	dispatch(caller: AgentCaller, invocation: Invocation): Promise<{ workload_id: string }> {
		return this.workloads.dispatch(caller, invocation);
	}

	runInvocation(caller: AgentCaller, invocation: Invocation): Promise<WorkloadOutcome> {
		return this.workloads.runInvocation(caller, invocation);
	}
}
