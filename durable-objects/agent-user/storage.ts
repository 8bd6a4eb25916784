import { ALARM_TIMERS_TABLE } from "../shared/alarm-timers";

/**
 * Everything a user's AgentUser keeps in its storage, SQL tables only. Code and tests name the tables
 * through this map; test/worker/durable-objects/storage-maps.test.ts checks it against what the object keeps.
 */
export const AGENT_USER_STORAGE = {
	keys: {},
	tables: {
		/** store.ts: chat sessions, titled by their first prompt. */
		sessions: "sessions",
		/** store.ts: chat and workload turns. */
		turns: "turns",
		/** store.ts: the event log every SSE stream reads. */
		events: "events",
		/** store.ts: invocations run to their end in the object. */
		workloads: "workloads",
		/** routines.ts: saved prompts on cron times and meeting events. */
		routines: "routines",
		/** routines.ts: one row per event run, so a repeated meeting event runs a routine once. */
		routineEventRuns: "routine_event_runs",
		/** actions.ts: what tainted turns were not allowed to do on their own, until the user confirms or refuses it. */
		heldActions: "held_actions",
		/** routine-files.ts: which routine each `routines/<name>.md` file made. */
		routineFiles: "routine_files",
		/** shared/alarm-timers.ts (timers.ts): heartbeats and routine timers on the one alarm. */
		alarmTimers: ALARM_TIMERS_TABLE,
	},
} as const;
