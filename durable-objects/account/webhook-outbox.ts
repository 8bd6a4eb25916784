/**
 * The durable webhook outbox of one account, composed into the AccountObject. Events live in
 * the DO's own SQLite, not in D1, so the queue survives a D1 outage.
 *
 * At-least-once: an event is written to the outbox (with its first retry time, and the alarm
 * armed) BEFORE the first attempt, and removed only once an attempt settles it. A crash in the
 * middle of an attempt therefore leads to a retry, never to a lost event.
 *
 * Retries after 1 min, 5 min, 30 min, 2 h, then every 2 h; none is scheduled later than 24 h
 * after the first attempt, so the attempt that has no successor is the last one (`failed`).
 *
 * Ordered events (`order_key`, a meeting's live events): of the events sharing a key only the
 * oldest queued (the chain's head) is attempted; the next waits until it was delivered or given
 * up, so a retry never lets a later event overtake it. The queue's rowid is its queuing order.
 */
import { type Clock, systemClock } from "../../src/clock";
import type { Env } from "../../src/env";
import { type AttemptOptions, type AttemptReport, attemptDelivery, type WebhookEvent } from "../../src/webhooks/deliver";
import type { WebhookEventType } from "../../src/webhooks/envelope";
import { addMissingColumns } from "../shared/sql-schema";
import { ACCOUNT_STORAGE } from "./storage";

const TABLES = ACCOUNT_STORAGE.tables;

import { errorName } from "../../src/error-text";

export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000] as const;
export const GIVE_UP_AFTER_MS = 24 * 3_600_000;
/**
 * A receiver down for a day must not grow the queue without bound; but the events of one
 * calendar sync (a plan per feed event, at most MAX_FEED_EVENTS) must fit whole.
 */
export const OUTBOX_CAPACITY = 5000;
const PARALLEL_ATTEMPTS = 5;
/** Attempts per alarm run: each is a subrequest, and an invocation may make only so many; the alarm comes back for the rest. */
const ATTEMPTS_PER_RUN = 200;

export type Deliver = (env: Env, userId: number, event: WebhookEvent, options: AttemptOptions) => Promise<AttemptReport>;

export interface OutboxOptions {
	clock?: Clock;
	/** Called whenever the earliest due time may have changed: the owner re-arms its alarm. */
	onScheduleChange?: () => Promise<void>;
	deliver?: Deliver;
	timeoutMs?: number;
	/** Most events kept; the oldest are dropped to make room. Defaults to OUTBOX_CAPACITY. */
	capacity?: number;
}

export interface QueuedWebhook extends WebhookEvent {
	user_id: number;
	attempts: number;
	first_attempt_at: number;
	next_attempt_at: number;
}

/**
 * What enqueue reports: the first attempt's report, that the event was already queued, or that it
 * waits behind an earlier event of its order key.
 */
export type EnqueueReport = AttemptReport | { outcome: "duplicate" | "waiting"; retry: true };

type Row = Record<string, SqlStorageValue> & {
	event_id: string;
	user_id: number;
	event_type: string;
	meeting_id: number | null;
	body: string;
	attempts: number;
	first_attempt_at: number;
	next_attempt_at: number;
	order_key: string | null;
};

/** Delay before retry number `attempt` (1 = after the first failed attempt). */
export function retryDelay(attempt: number): number {
	return RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length) - 1] ?? RETRY_DELAYS_MS[0];
}

export class WebhookOutbox {
	private readonly sql: SqlStorage;
	private readonly clock: Clock;
	private readonly deliver: Deliver;
	/** Events with an attempt under way in this instance; the alarm leaves them alone. */
	private readonly inFlight = new Set<string>();

	constructor(
		storage: DurableObjectStorage,
		private readonly env: Env,
		private readonly options: OutboxOptions = {},
	) {
		this.sql = storage.sql;
		this.clock = options.clock ?? systemClock;
		this.deliver = options.deliver ?? attemptDelivery;
		this.sql.exec(`CREATE TABLE IF NOT EXISTS ${TABLES.webhookOutbox} (
			event_id TEXT PRIMARY KEY,
			user_id INTEGER NOT NULL,
			event_type TEXT NOT NULL,
			meeting_id INTEGER,
			body TEXT NOT NULL,
			attempts INTEGER NOT NULL,
			first_attempt_at INTEGER NOT NULL,
			next_attempt_at INTEGER NOT NULL
		)`);
		this.sql.exec(`CREATE INDEX IF NOT EXISTS webhook_outbox_due ON ${TABLES.webhookOutbox}(next_attempt_at)`);
		addMissingColumns(this.sql, TABLES.webhookOutbox, { order_key: "TEXT" });
		this.sql.exec(`CREATE INDEX IF NOT EXISTS webhook_outbox_order ON ${TABLES.webhookOutbox}(order_key)`);
	}

	/** Attempts the event at once; a retryable failure leaves it queued for the alarm. */
	async enqueue(userId: number, event: WebhookEvent): Promise<EnqueueReport> {
		if (this.find(event.event_id)) return { outcome: "duplicate", retry: true };
		const now = this.now();
		this.store(userId, event, now, now + retryDelay(1));
		const row = this.find(event.event_id)!;
		if (!this.isHead(row)) {
			// Behind an earlier event of its key: attempted once that one is settled.
			this.sql.exec(`UPDATE ${TABLES.webhookOutbox} SET next_attempt_at = ? WHERE event_id = ?`, now, event.event_id);
			await this.scheduleChanged();
			return { outcome: "waiting", retry: true };
		}
		await this.scheduleChanged();
		const report = await this.attempt(this.find(event.event_id)!);
		await this.scheduleChanged();
		return report;
	}

	/**
	 * Stores many events for the alarm to attempt at once (a calendar sync's steps): attempting
	 * each within the caller's call would hold it for as long as the receiver takes. Returns how
	 * many were new.
	 */
	async enqueueAll(userId: number, events: WebhookEvent[]): Promise<number> {
		const now = this.now();
		let taken = 0;
		for (const event of events) {
			if (this.find(event.event_id)) continue;
			this.store(userId, event, now, now);
			taken++;
		}
		if (taken > 0) await this.scheduleChanged();
		return taken;
	}

	/** A deleted meeting's events still waiting for an attempt go unsent; how many. */
	dropMeeting(meetingId: number): number {
		const { n } = this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${TABLES.webhookOutbox} WHERE meeting_id = ?`, meetingId).one();
		if (n > 0) this.sql.exec(`DELETE FROM ${TABLES.webhookOutbox} WHERE meeting_id = ?`, meetingId);
		return n;
	}

	/** Queues one event (making room first), its first attempt due at `due`. */
	private store(userId: number, event: WebhookEvent, now: number, due: number): void {
		this.makeRoom();
		this.sql.exec(
			`INSERT INTO ${TABLES.webhookOutbox} (event_id, user_id, event_type, meeting_id, body, attempts, first_attempt_at, next_attempt_at, order_key)
			VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?)`,
			event.event_id,
			userId,
			event.event_type,
			event.meeting_id,
			event.body,
			now,
			due,
			event.order_key ?? null,
		);
	}

	/**
	 * Attempts the events that are due, oldest due first, up to a run's share (the owner's alarm
	 * calls this). An ordered chain goes on with its next event as soon as its head is settled.
	 */
	async runDue(): Promise<void> {
		const due = this.sql
			.exec<Row>(
				`SELECT * FROM ${TABLES.webhookOutbox} WHERE next_attempt_at <= ? AND ${HEAD} ORDER BY next_attempt_at LIMIT ?`,
				this.now(),
				ATTEMPTS_PER_RUN,
			)
			.toArray()
			.filter((row) => !this.inFlight.has(row.event_id));
		const budget = { left: ATTEMPTS_PER_RUN };
		// A few at a time: a Worker holds at most six connections open at once.
		for (let i = 0; i < due.length && budget.left > 0; i += PARALLEL_ATTEMPTS) {
			await Promise.all(due.slice(i, i + PARALLEL_ATTEMPTS).map((row) => this.attemptChain(row.event_id, budget)));
		}
		if (due.length > 0) await this.scheduleChanged();
	}

	/** The earliest time an event is due, in epoch ms; null when the outbox is empty (an event behind its chain's head is not due). */
	nextDueAt(): number | null {
		const row = this.sql
			.exec<{ due: number | null }>(`SELECT MIN(next_attempt_at) AS due FROM ${TABLES.webhookOutbox} WHERE ${HEAD}`)
			.one();
		return row.due ?? null;
	}

	/** The queued events, oldest first (for inspection and tests). */
	pending(): QueuedWebhook[] {
		return this.sql.exec<Row>(`SELECT * FROM ${TABLES.webhookOutbox} ORDER BY first_attempt_at, event_id`).toArray().map(toQueued);
	}

	/** Attempts an event, then (while it left the queue) the next of its order key that is due. */
	private async attemptChain(eventId: string, budget: { left: number }): Promise<void> {
		let row = this.find(eventId); // it may have been dropped since the alarm looked
		while (row && budget.left > 0 && !this.inFlight.has(row.event_id)) {
			budget.left--;
			await this.attempt(row);
			if (row.order_key === null || this.find(row.event_id)) return;
			row = this.sql
				.exec<Row>(`SELECT * FROM ${TABLES.webhookOutbox} WHERE order_key = ? ORDER BY rowid LIMIT 1`, row.order_key)
				.toArray()
				.find((next) => next.next_attempt_at <= this.now());
		}
	}

	/** Whether no earlier event of its order key is queued. */
	private isHead(row: Row): boolean {
		if (row.order_key === null) return true;
		const first = this.sql
			.exec<{ event_id: string }>(`SELECT event_id FROM ${TABLES.webhookOutbox} WHERE order_key = ? ORDER BY rowid LIMIT 1`, row.order_key)
			.one();
		return first.event_id === row.event_id;
	}

	private async attempt(row: Row): Promise<EnqueueReport> {
		const attempt = row.attempts + 1;
		const nextAt = this.now() + retryDelay(attempt);
		const willRetry = nextAt <= row.first_attempt_at + GIVE_UP_AFTER_MS;
		// Count the attempt and push its retry time out first, so a crash mid-attempt is retried.
		this.sql.exec(`UPDATE ${TABLES.webhookOutbox} SET attempts = ?, next_attempt_at = ? WHERE event_id = ?`, attempt, nextAt, row.event_id);
		this.inFlight.add(row.event_id);
		let report: AttemptReport;
		try {
			report = await this.deliver(this.env, row.user_id, toQueued(row), {
				attempt,
				willRetry,
				clock: this.clock,
				timeoutMs: this.options.timeoutMs,
			});
		} catch (err) {
			console.warn("webhook attempt threw", row.event_id, errorName(err));
			report = { outcome: willRetry ? "queued" : "failed", retry: willRetry, status_code: null, target_host: null, recorded: false };
		} finally {
			this.inFlight.delete(row.event_id);
		}
		// Settled, or out of time: either way it leaves the queue.
		if (!report.retry || !willRetry) this.sql.exec(`DELETE FROM ${TABLES.webhookOutbox} WHERE event_id = ?`, row.event_id);
		return report;
	}

	private find(eventId: string): Row | undefined {
		return this.sql.exec<Row>(`SELECT * FROM ${TABLES.webhookOutbox} WHERE event_id = ?`, eventId).toArray()[0];
	}

	/** Drops the oldest events so one more fits. */
	private makeRoom(): void {
		const { n } = this.sql.exec<{ n: number }>(`SELECT COUNT(*) AS n FROM ${TABLES.webhookOutbox}`).one();
		const capacity = this.options.capacity ?? OUTBOX_CAPACITY;
		if (n < capacity) return;
		const excess = n - capacity + 1;
		console.warn("webhook outbox full, dropping oldest", excess);
		this.sql.exec(
			`DELETE FROM ${TABLES.webhookOutbox} WHERE event_id IN (SELECT event_id FROM ${TABLES.webhookOutbox} ORDER BY first_attempt_at LIMIT ?)`,
			excess,
		);
	}

	private now(): number {
		return this.clock.now().getTime();
	}

	private async scheduleChanged(): Promise<void> {
		await this.options.onScheduleChange?.();
	}
}

/** An event no earlier event of its order key waits before: the one of its chain that may be attempted. */
const HEAD = `(order_key IS NULL OR rowid = (SELECT MIN(o.rowid) FROM ${TABLES.webhookOutbox} o WHERE o.order_key = ${TABLES.webhookOutbox}.order_key))`;

function toQueued(row: Row): QueuedWebhook {
	return {
		event_id: row.event_id,
		event_type: row.event_type as WebhookEventType,
		meeting_id: row.meeting_id,
		body: row.body,
		order_key: row.order_key,
		user_id: row.user_id,
		attempts: row.attempts,
		first_attempt_at: row.first_attempt_at,
		next_attempt_at: row.next_attempt_at,
	};
}
