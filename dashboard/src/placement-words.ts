/**
 * A meeting waiting for a bot host (docs/api.md#waiting-for-a-bot-host): what the meeting page
 * shows of `data.placement`, and how a `/ws` note updates it. Pure (placement-words.test.ts);
 * everything in a placement is rendered as text only.
 */
import type { FeedFrame } from "./live";
import type { Meeting } from "./types";

export type Placement = NonNullable<Meeting["data"]["placement"]>;

/** The record's placement while the meeting waits, else null. */
export function placementOf(meeting: Pick<Meeting, "data">): Placement | null {
	return meeting.data?.placement ?? null;
}

/** How long it has waited, from `since` to `nowMs`: "8 s", "2 min 05 s", "1 h 03 min". */
export function waitedWords(since: string, nowMs: number): string {
	const started = Date.parse(since);
	const s = Number.isFinite(started) ? Math.max(0, Math.floor((nowMs - started) / 1000)) : 0;
	const pad = (n: number) => String(n).padStart(2, "0");
	if (s < 60) return `${s} s`;
	if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
	return `${Math.floor(s / 3600)} h ${pad(Math.floor(s / 60) % 60)} min`;
}

/**
 * A `meeting.status` frame applied to the record's placement: a note carries the new one; a step
 * to another status ends the wait (a claimed bot reports `joining`); anything else keeps it.
 */
export function withPlacementFrame(meeting: Meeting, frame: FeedFrame): Meeting {
	if (frame.type !== "meeting.status" || frame.meeting.id !== meeting.id) return meeting;
	const placement = frame.payload.data?.placement;
	if (placement) return { ...meeting, data: { ...meeting.data, placement } };
	if (frame.payload.status === meeting.status || !meeting.data?.placement) return meeting;
	const { placement: _, ...rest } = meeting.data;
	return { ...meeting, data: rest };
}
