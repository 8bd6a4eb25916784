import type { AgentFrame, LoggedFrame } from "../../src/agent/frames";
import type { ChatMessage } from "../../src/agent/model-client";
import { addMissingColumns } from "../shared/sql-schema";
import { AGENT_USER_STORAGE } from "./storage";

const TABLES = AGENT_USER_STORAGE.tables;

/**
 * The SQLite state of one user's agent: chat sessions, turns, the event log every SSE stream
 * reads, workloads, and the model messages a session continues from. Every statement is
 * synchronous (DO SQLite), so a caller that logs and then fans out without an `await` in
 * between can never let a frame slip past a subscriber.
 */

/** How many events a user keeps; older ones go (a cursor before them replays what is left). */
export const EVENT_RETENTION = 5000;
/** How many finished turns of a session the model sees again. */
export const HISTORY_TURNS = 20;
/** A turn whose history carries other people's words is tainted for this reason, naming the first one. */
const EARLIER_TURN = "an earlier turn of this session brought text other people wrote into its history";

export type SessionRow = {
	name: string;
	title: string;
	created: number;
	last_active: number;
};

/** The session a workload's turns run in (durable-objects/agent-user/workloads.ts): `wl-<workload id>`. */
export const workloadSession = (workloadId: string) => `wl-${workloadId}`;

export type TurnRow = {
	turn_id: string;
	session: string;
	workload_id: string | null;
	prompt: string;
	reply: string | null;
	ok: number | null;
	detail: string | null;
	status: "running" | "done";
	started: number;
	ended: number | null;
	nonce: string | null;
	ops: string | null;
};

export type WorkloadStatus = "queued" | "running" | "completed" | "failed";

export type WorkloadRow = {
	workload_id: string;
	trigger: string;
	mode: string;
	launcher: string;
	context: string | null;
	start: string;
	invocation: string;
	status: WorkloadStatus;
	runs: number;
	rerun_pending: number;
	created: number;
	updated: number;
	last_ok: number | null;
	last_detail: string | null;
	last_reply: string | null;
};

/** A tool the agent used in a turn, as history lists it. */
export interface TurnOp {
	label: string;
	tool: string;
}

const SCHEMA = [
	`CREATE TABLE IF NOT EXISTS ${TABLES.sessions} (name TEXT PRIMARY KEY, title TEXT NOT NULL, created INTEGER NOT NULL, last_active INTEGER NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS ${TABLES.turns} (turn_id TEXT PRIMARY KEY, session TEXT NOT NULL, workload_id TEXT, prompt TEXT NOT NULL,
		reply TEXT, ok INTEGER, detail TEXT, status TEXT NOT NULL, started INTEGER NOT NULL, ended INTEGER, nonce TEXT, ops TEXT,
		messages TEXT)`,
	`CREATE INDEX IF NOT EXISTS turns_by_session ON ${TABLES.turns} (session, started)`,
	`CREATE INDEX IF NOT EXISTS turns_by_nonce ON ${TABLES.turns} (session, nonce)`,
	// AUTOINCREMENT: a sequence number is never handed out twice, even after pruning or a reset, so a cursor stays exact.
	`CREATE TABLE IF NOT EXISTS ${TABLES.events} (seq INTEGER PRIMARY KEY AUTOINCREMENT, turn_id TEXT NOT NULL, session TEXT NOT NULL,
		workload_id TEXT, frame TEXT NOT NULL, at INTEGER NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS events_by_session ON ${TABLES.events} (session, seq)`,
	`CREATE INDEX IF NOT EXISTS events_by_turn ON ${TABLES.events} (turn_id, seq)`,
	`CREATE INDEX IF NOT EXISTS events_by_workload ON ${TABLES.events} (workload_id, seq)`,
	`CREATE TABLE IF NOT EXISTS ${TABLES.workloads} (workload_id TEXT PRIMARY KEY, trigger TEXT NOT NULL, mode TEXT NOT NULL,
		launcher TEXT NOT NULL, context TEXT, start TEXT NOT NULL, invocation TEXT NOT NULL, status TEXT NOT NULL,
		runs INTEGER NOT NULL DEFAULT 0, rerun_pending INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL, updated INTEGER NOT NULL,
		last_ok INTEGER, last_detail TEXT, last_reply TEXT)`,
];

const parseFrame = (text: string): AgentFrame => JSON.parse(text) as AgentFrame;

export class AgentStore {
	constructor(private readonly sql: SqlStorage) {
		for (const statement of SCHEMA) sql.exec(statement);
		// Why a turn was tainted (src/agent/taint.ts): the turns after it see its messages again.
		addMissingColumns(sql, TABLES.turns, { taint: "TEXT" });
	}

	// Sessions

	/** A session comes into being with its first turn, titled by that turn's prompt. */
	touchSession(name: string, firstPrompt: string, now: number): void {
		this.sql.exec(
			`INSERT INTO ${TABLES.sessions} (name, title, created, last_active) VALUES (?, ?, ?, ?)
			 ON CONFLICT (name) DO UPDATE SET last_active = excluded.last_active`,
			name,
			titleOf(firstPrompt),
			now,
			now,
		);
	}

	session(name: string): SessionRow | null {
		return this.sql.exec<SessionRow>(`SELECT * FROM ${TABLES.sessions} WHERE name = ?`, name).toArray()[0] ?? null;
	}

	/**
	 * The sessions, newest first, each with the workload it is the session of (null: a chat). A
	 * workload's session is named after a workload this object ran, so a chat a user named `wl-…`
	 * stays a chat. Without `withWorkloads`, only chats.
	 */
	sessions(withWorkloads: boolean): (SessionRow & { workload_id: string | null })[] {
		return this.sql
			.exec<SessionRow & { workload_id: string | null }>(
				`SELECT s.name, s.title, s.created, s.last_active, w.workload_id FROM ${TABLES.sessions} s
				 LEFT JOIN ${TABLES.workloads} w ON s.name = 'wl-' || w.workload_id
				 ${withWorkloads ? "" : "WHERE w.workload_id IS NULL"}
				 ORDER BY s.last_active DESC, s.created DESC, s.name`,
			)
			.toArray();
	}

	/** Forgets a session: its history and its events. A turn still running keeps its own rows and finishes. */
	resetSession(name: string): void {
		this.sql.exec(
			`DELETE FROM ${TABLES.events} WHERE session = ? AND turn_id NOT IN (SELECT turn_id FROM ${TABLES.turns} WHERE status = 'running')`,
			name,
		);
		this.sql.exec(`DELETE FROM ${TABLES.turns} WHERE session = ? AND status = 'done'`, name);
		this.sql.exec(`DELETE FROM ${TABLES.sessions} WHERE name = ?`, name);
	}

	// Turns

	startTurn(turn: { turnId: string; session: string; workloadId: string | null; prompt: string; nonce: string | null; now: number }) {
		this.touchSession(turn.session, turn.prompt, turn.now);
		this.sql.exec(
			`INSERT INTO ${TABLES.turns} (turn_id, session, workload_id, prompt, status, started, nonce) VALUES (?, ?, ?, ?, 'running', ?, ?)`,
			turn.turnId,
			turn.session,
			turn.workloadId,
			turn.prompt,
			turn.now,
			turn.nonce,
		);
	}

	/** A turn ended; only a successful one leaves model messages for the next turn to continue from. */
	endTurn(
		turnId: string,
		end: {
			reply: string;
			ok: boolean;
			detail: string | null;
			ops: TurnOp[];
			messages: ChatMessage[] | null;
			taint: string | null;
			now: number;
		},
	) {
		this.sql.exec(
			`UPDATE ${TABLES.turns} SET status = 'done', reply = ?, ok = ?, detail = ?, ops = ?, messages = ?, taint = ?, ended = ? WHERE turn_id = ?`,
			end.reply,
			end.ok ? 1 : 0,
			end.detail,
			JSON.stringify(end.ops),
			end.messages ? JSON.stringify(end.messages) : null,
			end.taint,
			end.now,
			turnId,
		);
		const session = this.turn(turnId)?.session;
		if (session) this.sql.exec(`UPDATE ${TABLES.sessions} SET last_active = ? WHERE name = ?`, end.now, session);
	}

	turn(turnId: string): TurnRow | null {
		return this.sql.exec<TurnRow>(`SELECT * FROM ${TABLES.turns} WHERE turn_id = ?`, turnId).toArray()[0] ?? null;
	}

	turnByNonce(session: string, nonce: string): TurnRow | null {
		return (
			this.sql
				.exec<TurnRow>(`SELECT * FROM ${TABLES.turns} WHERE session = ? AND nonce = ? ORDER BY started DESC LIMIT 1`, session, nonce)
				.toArray()[0] ?? null
		);
	}

	runningTurn(session: string): TurnRow | null {
		return (
			this.sql.exec<TurnRow>(`SELECT * FROM ${TABLES.turns} WHERE session = ? AND status = 'running' LIMIT 1`, session).toArray()[0] ?? null
		);
	}

	runningTurns(): TurnRow[] {
		return this.sql.exec<TurnRow>(`SELECT * FROM ${TABLES.turns} WHERE status = 'running'`).toArray();
	}

	/** A session's turns, oldest first. */
	turns(session: string): TurnRow[] {
		return this.sql.exec<TurnRow>(`SELECT * FROM ${TABLES.turns} WHERE session = ? ORDER BY started, rowid`, session).toArray();
	}

	/** What the model saw and said in the session's last successful turns, oldest first. */
	modelHistory(session: string, turns = HISTORY_TURNS): ChatMessage[] {
		const rows = this.sql
			.exec<{ messages: string }>(
				`SELECT messages FROM (SELECT messages, started, rowid FROM ${TABLES.turns} WHERE session = ? AND status = 'done' AND ok = 1 AND messages IS NOT NULL
				 ORDER BY started DESC, rowid DESC LIMIT ?) ORDER BY started, rowid`,
				session,
				turns,
			)
			.toArray();
		return rows.flatMap((r) => JSON.parse(r.messages) as ChatMessage[]);
	}

	/** Why the turns `modelHistory` hands back carry other people's words (the newest such turn's reason); null when none does. */
	historyTaint(session: string, turns = HISTORY_TURNS): string | null {
		const row = this.sql
			.exec<{ taint: string }>(
				`SELECT taint FROM (SELECT taint, started, rowid FROM ${TABLES.turns} WHERE session = ? AND status = 'done' AND ok = 1 AND messages IS NOT NULL
				 ORDER BY started DESC, rowid DESC LIMIT ?) WHERE taint IS NOT NULL ORDER BY started DESC, rowid DESC LIMIT 1`,
				session,
				turns,
			)
			.toArray()[0];
		if (!row) return null;
		return row.taint.startsWith(EARLIER_TURN) ? row.taint : `${EARLIER_TURN} (${row.taint})`;
	}

	// Events

	/** Appends a frame to the log and answers it with its sequence number, its SSE id. */
	append(frame: AgentFrame, session: string, workloadId: string | null, now: number): LoggedFrame {
		const { seq } = this.sql
			.exec<{ seq: number }>(
				`INSERT INTO ${TABLES.events} (turn_id, session, workload_id, frame, at) VALUES (?, ?, ?, ?, ?) RETURNING seq`,
				frame.turn_id,
				session,
				workloadId,
				JSON.stringify(frame),
				now,
			)
			.one();
		return { seq, frame };
	}

	eventsAfter(session: string, seq: number): LoggedFrame[] {
		return this.sql
			.exec<{ seq: number; frame: string }>(
				`SELECT seq, frame FROM ${TABLES.events} WHERE session = ? AND seq > ? ORDER BY seq`,
				session,
				seq,
			)
			.toArray()
			.map((r) => ({ seq: r.seq, frame: parseFrame(r.frame) }));
	}

	turnEvents(turnId: string): LoggedFrame[] {
		return this.sql
			.exec<{ seq: number; frame: string }>(`SELECT seq, frame FROM ${TABLES.events} WHERE turn_id = ? ORDER BY seq`, turnId)
			.toArray()
			.map((r) => ({ seq: r.seq, frame: parseFrame(r.frame) }));
	}

	/** The session an event belongs to, when it is still kept. */
	sessionOfEvent(seq: number): string | null {
		return this.sql.exec<{ session: string }>(`SELECT session FROM ${TABLES.events} WHERE seq = ?`, seq).toArray()[0]?.session ?? null;
	}

	workloadEvents(workloadId: string, limit: number): LoggedFrame[] {
		return this.sql
			.exec<{ seq: number; frame: string }>(
				`SELECT seq, frame FROM (SELECT seq, frame FROM ${TABLES.events} WHERE workload_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`,
				workloadId,
				limit,
			)
			.toArray()
			.map((r) => ({ seq: r.seq, frame: parseFrame(r.frame) }));
	}

	/** Keeps the newest `keep` events; a running turn's events stay whatever their age, so its replay is whole. */
	pruneEvents(keep = EVENT_RETENTION): void {
		this.sql.exec(
			`DELETE FROM ${TABLES.events} WHERE seq <= (SELECT seq FROM ${TABLES.events} ORDER BY seq DESC LIMIT 1 OFFSET ?)
			 AND turn_id NOT IN (SELECT turn_id FROM ${TABLES.turns} WHERE status = 'running')`,
			keep,
		);
	}

	// Workloads

	workload(workloadId: string): WorkloadRow | null {
		return this.sql.exec<WorkloadRow>(`SELECT * FROM ${TABLES.workloads} WHERE workload_id = ?`, workloadId).toArray()[0] ?? null;
	}

	/**
	 * Records a start of a workload with its fresh inputs. A second start of the same id replaces
	 * the stored ones (the reference keeps the stale inputs: its issue #730); if the workload is
	 * running, it is marked to run again with them once the current run ends.
	 */
	upsertWorkload(w: {
		workloadId: string;
		trigger: string;
		mode: string;
		launcher: string;
		context: unknown;
		start: unknown;
		invocation: unknown;
		now: number;
	}) {
		this.sql.exec(
			`INSERT INTO ${TABLES.workloads} (workload_id, trigger, mode, launcher, context, start, invocation, status, created, updated)
			 VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)
			 ON CONFLICT (workload_id) DO UPDATE SET trigger = excluded.trigger, mode = excluded.mode, launcher = excluded.launcher,
			   context = excluded.context, start = excluded.start, invocation = excluded.invocation, updated = excluded.updated,
			   rerun_pending = CASE WHEN ${TABLES.workloads}.status = 'running' THEN 1 ELSE 0 END,
			   status = CASE WHEN ${TABLES.workloads}.status = 'running' THEN 'running' ELSE 'queued' END`,
			w.workloadId,
			w.trigger,
			w.mode,
			w.launcher,
			w.context === undefined ? null : JSON.stringify(w.context),
			JSON.stringify(w.start),
			JSON.stringify(w.invocation),
			w.now,
			w.now,
		);
	}

	/** A run begins: it takes the inputs stored now, and clears any pending rerun it thereby serves. */
	beginWorkloadRun(workloadId: string, now: number): WorkloadRow {
		this.sql.exec(
			`UPDATE ${TABLES.workloads} SET status = 'running', runs = runs + 1, rerun_pending = 0, updated = ? WHERE workload_id = ?`,
			now,
			workloadId,
		);
		const row = this.workload(workloadId);
		if (!row) throw new Error("workload vanished");
		return row;
	}

	/** A run ended; answers whether another start came meanwhile and the workload must run again. */
	endWorkloadRun(workloadId: string, outcome: { ok: boolean; detail: string | null; reply: string | null }, now: number): boolean {
		const rerun = this.workload(workloadId)?.rerun_pending === 1;
		this.sql.exec(
			`UPDATE ${TABLES.workloads} SET status = ?, last_ok = ?, last_detail = ?, last_reply = ?, updated = ? WHERE workload_id = ?`,
			rerun ? "running" : outcome.ok ? "completed" : "failed",
			outcome.ok ? 1 : 0,
			outcome.detail,
			outcome.reply,
			now,
			workloadId,
		);
		return rerun;
	}

	/** Workloads left running by an object that went away mid-run: they failed. */
	failInterruptedWorkloads(detail: string, now: number): void {
		this.sql.exec(
			`UPDATE ${TABLES.workloads} SET status = 'failed', rerun_pending = 0, last_ok = 0, last_detail = ?, updated = ? WHERE status = 'running'`,
			detail,
			now,
		);
	}
}

/** A session's title: its first prompt on one line, at most 60 characters. */
export function titleOf(prompt: string): string {
	const line = prompt.replace(/\s+/g, " ").trim();
	return line.length <= 60 ? line : `${line.slice(0, 59)}…`;
}
