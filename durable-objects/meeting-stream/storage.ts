/**
 * Everything a MeetingStream keeps, in one place: its SQLite log table and its storage keys.
 * Code and tests name them through these maps, never by string.
 */
import { KV_TIMER_KEYS } from "../shared/alarm-timers";

/** The stream's SQLite table: one row per logged event, its `seq` the SSE id (log.ts). */
export const STREAM_TABLE = "stream_events";

export const STREAM_KEYS = {
	/** The live copilot's state (copilot.ts CopilotState): how it was started and how far it got. */
	copilot: "copilot",
	/** How the transcript reaches the copilot, for relay-health (copilot.ts CopilotIngest). */
	copilotIngest: "copilotIngest",
	/** The stream's named timers (StreamTimerName) and their retry counts. */
	timers: KV_TIMER_KEYS.timers,
	timerRetries: (name: string) => `${KV_TIMER_KEYS.retriesPrefix}${name}`,
} as const;

/** The stream's timers: `copilot_final`, the copilot's final beat and meeting document, retried until written. */
export const STREAM_TIMERS = ["copilot_final"] as const;
export type StreamTimerName = (typeof STREAM_TIMERS)[number];
