/**
 * What the meeting's stream answers its room and the summary route about a summary: the stream
 * makes it (durable-objects/meeting-stream/summary.ts); these are the shapes the calls cross with.
 */
import type { MeetingRow } from "../db/schema";
import type { MeetingSummary } from "./meeting-summary";

/** What a completion's summary came to at once: the record with it claimed, and whether `meeting.completed` waits for it. */
export interface SummaryClaim {
	row: MeetingRow;
	hold: boolean;
}

/** What asking again for a meeting's summary came to (the meeting stream's `summarize`). */
export interface SummaryRetry {
	/** Why nothing was begun, or null when the summary is now pending. */
	refused: "no_model" | "taken" | null;
	summary: MeetingSummary | null;
}
