import { AlarmTimers, kvTimerStore } from "./shared/alarm-timers";

/**
 * `placement`: how long a spawn ticket waits for a host's claim. `watchdog`: after a claim, how
 * long the bot may take to connect, or stay away from its channel. `copilot_final`: the
 * copilot's final beat and meeting document, retried until written.
 */
export type TimerName = "placement" | "watchdog" | "stop_deadline" | "auto_join" | "notify" | "copilot_final";

/**
 * The room's named timers on its one alarm (the mechanism: durable-objects/shared/alarm-timers.ts),
 * under the storage keys rooms have always used. A due timer stays until its action has
 * succeeded; a failed action is retried with backoff, so one failed write never disables a
 * watchdog or an auto-join.
 */
export class RoomTimers extends AlarmTimers<TimerName> {
	constructor(storage: DurableObjectStorage) {
		super(storage, kvTimerStore(storage, { timers: "timers", retriesPrefix: "timerRetries:" }));
	}
}
