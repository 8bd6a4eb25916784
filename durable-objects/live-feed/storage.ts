import { ALARM_TIMERS_TABLE } from "../shared/alarm-timers";

/** Everything a user's LiveFeed keeps in its storage (test/worker/durable-objects/storage-maps.test.ts). */
export const LIVE_FEED_STORAGE = {
	keys: {
		/** subscriptions.ts: `subs:<socket id>` → meeting id → the ref the socket subscribed with. */
		subscriptionsPrefix: "subs:",
		/** subscriptions.ts: `waiting:<socket id>` → the links the socket waits on for a first meeting. */
		waitingPrefix: "waiting:",
		/** streams.ts: where the user has meeting streams (SSE) open. */
		streams: "streams",
	},
	tables: {
		/** shared/alarm-timers.ts: a retry of the `key_expiry` timer (its due time is derived from the sockets' keys). */
		alarmTimers: ALARM_TIMERS_TABLE,
	},
} as const;
