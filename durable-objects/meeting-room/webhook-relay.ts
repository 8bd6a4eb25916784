import type { MeetingRow } from "../../src/db/schema";
import { type StatusStep, stepWebhookEvent } from "../../src/meetings/status-writes";
import type { AccountStub } from "../../src/objects";
import type { WebhookEvent } from "../../src/webhooks/deliver";
import type { MeetingWebhookEventType } from "../../src/webhooks/envelope";
import type { AlarmTimers } from "../shared/alarm-timers";
import { ROOM_KEYS, type RoomTimerName } from "./storage";

interface PendingNotice extends WebhookEvent {
	userId: number;
}

const PREFIX = ROOM_KEYS.noticePrefix;
/** How soon the alarm looks again when a drain right after the step did not empty the list. */
const SAFETY_NET_MS = 5_000;
/** As the account outbox does: an event nobody could take for a day is given up (and logged). */
const GIVE_UP_AFTER_MS = 24 * 3600_000;

/**
 * The room's webhook events on their way to the owner's outbox. A step's events are stored in
 * room storage in the same write as the step itself (see `prepare`), and each leaves only once
 * the account's outbox has taken it; what the drain right after the step could not hand over,
 * the room's `notify` timer retries. Bodies are built once, so a retry sends the same event.
 * The meeting's live events (live-webhooks.ts) wait here too, in order among the step events.
 */
export class RoomWebhookRelay {
	private counter = 0;

	constructor(
		private readonly storage: DurableObjectStorage,
		private readonly timers: AlarmTimers<RoomTimerName>,
		/** The owner's account object (its outbox takes the events). */
		private readonly account: (userId: number) => AccountStub,
	) {}

	/** The storage entries for a step's events; the caller writes them together with the step. */
	async prepare(row: MeetingRow, events: MeetingWebhookEventType[], step: StatusStep): Promise<Record<string, PendingNotice>> {
		const entries: Record<string, PendingNotice> = {};
		for (const eventType of events) Object.assign(entries, this.entry(row.userId, await stepWebhookEvent(row, step, eventType)));
		return entries;
	}

	/** The storage entry of one event; the caller writes it with whatever made it. */
	entry(userId: number, event: WebhookEvent): Record<string, PendingNotice> {
		// Keys sort in the order the events happened, so the drain keeps it.
		const key = `${PREFIX}${String(Date.now()).padStart(15, "0")}:${String(this.counter++).padStart(6, "0")}`;
		return { [key]: { userId, ...event } };
	}

	/** Arms the retry before the first attempt, so a drain that dies half-way is picked up. */
	async armRetry(): Promise<void> {
		if ((await this.timers.due("notify")) === undefined) await this.timers.set("notify", Date.now() + SAFETY_NET_MS);
	}

	/** Hands pending events to the outbox in order; throws on the first it cannot hand over (the rest wait). */
	async drain(): Promise<void> {
		const pending = await this.storage.list<PendingNotice>({ prefix: PREFIX });
		for (const [key, { userId, ...event }] of pending) {
			try {
				// An ordered event only joins its chain (the outbox's alarm sends it): the drain never waits for a receiver.
				if (event.order_key) await this.account(userId).takeWebhookEvents(userId, [event]);
				else await this.account(userId).enqueueWebhook(userId, event);
			} catch (err) {
				if (Date.now() - recordedAt(key) < GIVE_UP_AFTER_MS) throw err;
				console.error("webhook event given up after a day", event.event_type, event.meeting_id);
			}
			await this.storage.delete(key);
		}
		await this.timers.clear("notify");
	}
}

/** When a pending event was recorded (its key starts with the time). */
function recordedAt(key: string): number {
	return Number(key.slice(PREFIX.length).split(":")[0]);
}
