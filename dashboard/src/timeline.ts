/**
 * A meeting's status timeline (docs/status-machine.md). The record keeps when it was created,
 * first `active` (`start_time`) and ended (`end_time`) with its reason; the steps in between
 * are the `meeting.status` frames this page has seen live. Pure (timeline.test.ts).
 */
import { TERMINAL_STATUSES } from "../../src/meetings/statuses";
import type { Meeting } from "./types";
import { causeWords, reasonWords, stageWords, stepWords } from "./words";

export interface TimelineStep {
	status: string;
	at: string | null;
	/** The step's sentence: the frame's `reason`, or how the meeting ended. */
	detail: string | null;
}

/** A `meeting.status` frame's payload as the page keeps it. */
export interface SeenStatus {
	status: string;
	ts: string | null;
	reason?: string | null;
}

const TERMINAL = new Set<string>(TERMINAL_STATUSES);

/** How the meeting ended, in one sentence with the named reason; null while it is not over. */
export function endingWords(meeting: Meeting): string | null {
	if (!TERMINAL.has(meeting.status)) return null;
	const reason = meeting.completion_reason ?? meeting.data?.completion_reason ?? null;
	const words = reasonWords(reason, meeting.data?.completion_cause);
	if (meeting.status === "completed") return words ? `Completed: ${words}.` : "Completed.";
	const stage = meeting.failure_stage ?? meeting.data?.failure_stage ?? null;
	const detail = meeting.data?.failure_detail ?? null;
	const cause = causeWords(meeting.data?.failure_cause);
	const step = meeting.data?.join_step;
	const parts = [`Failed${stage ? ` ${stageWords(stage)}` : ""}${words ? `: ${words}` : ""}${cause ? ` (${cause})` : ""}.`];
	if (step && stage !== "active") parts.push(`Last step: ${stepWords(step)}.`);
	if (detail) parts.push(detail);
	return parts.join(" ");
}

export function buildTimeline(meeting: Meeting, seen: SeenStatus[]): TimelineStep[] {
	const steps: TimelineStep[] = [{ status: "created", at: meeting.created_at, detail: null }];
	for (const step of seen) {
		const last = steps[steps.length - 1];
		if (last?.status === step.status) continue;
		steps.push({ status: step.status, at: step.ts, detail: step.reason ?? null });
	}
	const has = (status: string) => steps.some((s) => s.status === status);
	if (meeting.start_time && !has("active")) steps.push({ status: "active", at: meeting.start_time, detail: null });
	if (TERMINAL.has(meeting.status)) {
		const ending = endingWords(meeting);
		const existing = steps.find((s) => s.status === meeting.status);
		if (existing) existing.detail = ending;
		else steps.push({ status: meeting.status, at: meeting.end_time, detail: ending });
	} else if (!has(meeting.status)) steps.push({ status: meeting.status, at: meeting.updated_at, detail: null });
	// Stable sort by time: a step without a time keeps its place after the ones before it.
	return steps
		.map((step, index) => ({ step, index, t: step.at ? Date.parse(step.at) : Number.NaN }))
		.sort((a, b) => (Number.isNaN(a.t) || Number.isNaN(b.t) ? a.index - b.index : a.t - b.t || a.index - b.index))
		.map((e) => e.step);
}
