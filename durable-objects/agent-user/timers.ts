import { AlarmTimers, sqlTimerStore } from "../shared/alarm-timers";

/**
 * The kinds of timer on a user's agent object, one alarm for all (shared/alarm-timers.ts):
 * `turn-heartbeat` keeps the object up while a turn runs; `routine:<id>` is a scheduled
 * routine's next run, `routine-retry:<id>` its retry, `routine-event:<run>` an event run (routines.ts).
 */
export type AgentTimer = "turn-heartbeat" | "routine" | "routine-retry" | "routine-event";

export type AgentTimers = AlarmTimers<AgentTimer>;

/** Kept in SQLite (`alarm_timers`), since a user may hold many routines. */
export const agentTimers = (storage: DurableObjectStorage): AgentTimers => new AlarmTimers<AgentTimer>(storage, sqlTimerStore(storage));
