import { ALARM_TIMERS_TABLE } from "../shared/alarm-timers";

/**
 * Everything the AccountObject keeps in its storage. Code and tests name keys and tables through
 * this map; test/worker/durable-objects/storage-maps.test.ts checks it against what the object keeps.
 */
export const ACCOUNT_STORAGE = {
	keys: {
		/** bot-slots.ts: meeting link → the meeting holding its slot, or when an unbound slot was claimed. */
		botSlots: "botSlots",
		/** tickets.ts: `ticket:<hash>` → the grant of an outstanding /ws ticket. */
		ticketPrefix: "ticket:",
	},
	tables: {
		/** webhook-outbox.ts: events waiting for an attempt, with their retry times. */
		webhookOutbox: "webhook_outbox",
		/** shared/alarm-timers.ts: the account's timers on its one alarm. */
		alarmTimers: ALARM_TIMERS_TABLE,
	},
} as const;
