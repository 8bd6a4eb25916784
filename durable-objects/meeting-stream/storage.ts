/**
 * Everything a MeetingStream keeps, in one place: its SQLite log table and its storage keys.
 * Code and tests name them through this map, never by string
 * (test/worker/durable-objects/storage-maps.test.ts checks it against what the object keeps).
 */
import { KV_TIMER_KEYS } from "../shared/alarm-timers";

export const STREAM_STORAGE = {
	keys: {
		/** The live copilot's state (copilot.ts CopilotState): how it was started and how far it got. */
		copilot: "copilot",
		/** How the transcript reaches the copilot, for relay-health (copilot.ts CopilotIngest). */
		copilotIngest: "copilotIngest",
		/** The completed meeting's summary while it is made (summary.ts SummaryJob). */
		summaryJob: "summaryJob",
		/** The stream's named timers (StreamTimerName), and each one's retry count under the prefix. */
		timers: KV_TIMER_KEYS.timers,
		timerRetriesPrefix: KV_TIMER_KEYS.retriesPrefix,
	},
	tables: {
		/** log.ts: one row per logged event, its `seq` the SSE id. */
		events: "stream_events",
	},
} as const;

/** The stream's SQLite log table, by its map name. */
export const STREAM_TABLE = STREAM_STORAGE.tables.events;

/** The stream's keys, by their map names; a timer's retry count is under `timerRetries(name)`. */
export const STREAM_KEYS = {
	...STREAM_STORAGE.keys,
	timerRetries: (name: string) => `${STREAM_STORAGE.keys.timerRetriesPrefix}${name}`,
} as const;

/**
 * The stream's timers: `copilot_final`, the copilot's final beat and meeting document, retried
 * until written; `summary`, a completed meeting's summary is made (summary.ts).
 */
export const STREAM_TIMERS = ["copilot_final", "summary"] as const;
export type StreamTimerName = (typeof STREAM_TIMERS)[number];
