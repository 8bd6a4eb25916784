import type { Env } from "../../src/env";
import { setting } from "../../src/settings/deployment-defaults";
import { type AlarmTimers, kvAlarmTimers } from "../shared/alarm-timers";
import { StreamLog } from "./log";
import type { StreamTimerName } from "./storage";

/**
 * The MeetingStream's inside, handed to its parts (the copilot, the readers' access checks):
 * none of it is on the object's RPC surface.
 */
export interface StreamContext {
	/** Read at each use: the object's `env` is the one binding set (tests swap it for faults). */
	readonly env: Env;
	readonly storage: DurableObjectStorage;
	/** The meeting's SSE log: transcript and copilot output in one sequence. */
	readonly log: StreamLog;
	readonly timers: AlarmTimers<StreamTimerName>;
	waitUntil(work: Promise<unknown>): void;
}

/** The context of the object with state `ctx`; its `env` read through `envOf` at each use. */
export function contextOf(ctx: DurableObjectState, envOf: () => Env): StreamContext {
	return {
		get env() {
			return envOf();
		},
		storage: ctx.storage,
		log: new StreamLog(ctx.storage.sql, setting(envOf(), "AGENT_SSE_KEEPALIVE_MS")),
		timers: kvAlarmTimers<StreamTimerName>(ctx.storage),
		waitUntil: (work) => ctx.waitUntil(work),
	};
}
