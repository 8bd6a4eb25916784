import type { Env } from "../../src/env";
import type { AlarmTimers } from "../shared/alarm-timers";
import type { StreamLog } from "./log";
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
