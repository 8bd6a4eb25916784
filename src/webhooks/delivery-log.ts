/**
 * Drizzle store: the webhook delivery history (`webhook_deliveries`), one row per attempt that had
 * a target, the account's newest rows kept.
 */
import { and, desc, eq, lt, notInArray } from "drizzle-orm";
import type { Clock } from "../clock";
import { db } from "../db";
import { webhookDeliveries } from "../db/schema";
import type { Env } from "../env";
import type { WebhookEventType } from "./envelope";
import type { WEBHOOK_TEST_EVENT } from "./test-event";

export const DELIVERY_HISTORY_KEPT = 100;

interface RowFields {
	host: string;
	outcome: DeliveryOutcome;
	status: number | null;
	attempt: number;
	clock: Clock;
}

export type DeliveryOutcome = "delivered" | "queued" | "suppressed" | "blocked" | "failed";

/** One logical event, its envelope serialized once so every attempt sends the same bytes. */
export interface WebhookEvent {
	event_id: string;
	/** A meeting event, or the test event the owner sends from settings (POST /user/webhook/test). */
	event_type: WebhookEventType | typeof WEBHOOK_TEST_EVENT;
	meeting_id: number | null;
	body: string;
	/**
	 * Events sharing a key are attempted one at a time in the order they were queued: the next
	 * only once the one before was delivered or given up (a meeting's live events, `meeting:<id>`).
	 */
	order_key?: string | null;
}

/** Writes one history row and prunes the account to its newest rows; false if D1 refused. */
export async function recordDelivery(d1: D1Database, userId: number, event: WebhookEvent, row: RowFields): Promise<boolean> {
	const orm = db({ DB: d1 });
	const newest = orm
		.select({ id: webhookDeliveries.id })
		.from(webhookDeliveries)
		.where(eq(webhookDeliveries.userId, userId))
		.orderBy(desc(webhookDeliveries.id))
		.limit(DELIVERY_HISTORY_KEPT);
	try {
		await orm.batch([
			orm.insert(webhookDeliveries).values({
				userId,
				eventType: event.event_type,
				eventId: event.event_id,
				targetHost: row.host,
				outcome: row.outcome,
				statusCode: row.status,
				attempt: row.attempt,
				meetingId: event.meeting_id,
				createdAt: row.clock.now().toISOString(),
			}),
			orm.delete(webhookDeliveries).where(and(eq(webhookDeliveries.userId, userId), notInArray(webhookDeliveries.id, newest))),
		]);
		return true;
	} catch (err) {
		console.warn("webhook delivery row not written", userId, event.event_id, errorName(err));
		return false;
	}
}

/** The account's delivery rows, newest first, at most `limit`, older than the row `before` when given (a page's cursor). */
export async function listDeliveries(env: Env, userId: number, limit: number, before?: number): Promise<WebhookDeliveryRow[]> {
	const mine = eq(webhookDeliveries.userId, userId);
	return db(env)
		.select()
		.from(webhookDeliveries)
		.where(before === undefined ? mine : and(mine, lt(webhookDeliveries.id, before)))
		.orderBy(desc(webhookDeliveries.id))
		.limit(limit)
		.all();
}

type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

const errorName = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : "unknown error");
