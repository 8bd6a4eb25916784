import type { Env } from "../../src/env";
import { AlarmTimers, sqlTimerStore } from "../shared/alarm-timers";
import { SerialQueue } from "../shared/serial-queue";
import { SocketKeys } from "./socket-keys";
import { FeedStreams } from "./streams";
import { FeedSubscriptions } from "./subscriptions";

/** The feed's one timer: the earliest expiry among its open sockets' keys (derived from their tags, never stored). */
export type FeedTimerName = "key_expiry";

/**
 * A LiveFeed's inside, handed to its parts (the sockets' frames, the rooms' deliveries): none of
 * it is on the object's RPC surface. Control work runs on `queue`, one piece at a time, so a
 * revocation never races a subscribe that read the old membership.
 */
export interface FeedContext {
	/** Read at each use: the object's `env` is the one binding set (tests swap it for faults). */
	readonly env: Env;
	readonly state: DurableObjectState;
	readonly subs: FeedSubscriptions;
	/** Where this user has meeting streams (SSE) open: a revalidation reaches them too. */
	readonly streams: FeedStreams;
	/** The keys the sockets stand on: a revoked or expired key ends its sockets. */
	readonly keys: SocketKeys;
	/** The feed's alarm (shared/alarm-timers.ts), due at the earliest key expiry. */
	readonly timers: AlarmTimers<FeedTimerName>;
	readonly queue: SerialQueue;
}

export function feedContextOf(state: DurableObjectState, envOf: () => Env): FeedContext {
	const env = envOf();
	const keys = new SocketKeys(state, env);
	return {
		get env() {
			return envOf();
		},
		state,
		subs: new FeedSubscriptions(state.storage, () => state.getWebSockets()),
		streams: new FeedStreams(state.storage, env),
		keys,
		timers: new AlarmTimers<FeedTimerName>(state.storage, sqlTimerStore(state.storage), {
			derived: { key_expiry: () => keys.earliestExpiry() },
		}),
		queue: new SerialQueue(),
	};
}
