/** Everything a user's LiveFeed keeps in its storage: keys only (test/worker/durable-objects/storage-maps.test.ts). */
export const LIVE_FEED_STORAGE = {
	keys: {
		/** subscriptions.ts: `subs:<socket id>` → meeting id → the ref the socket subscribed with. */
		subscriptionsPrefix: "subs:",
		/** subscriptions.ts: `waiting:<socket id>` → the links the socket waits on for a first meeting. */
		waitingPrefix: "waiting:",
		/** streams.ts: where the user has meeting streams (SSE) open. */
		streams: "streams",
	},
	tables: {},
} as const;
