/**
 * Drizzle store: `data.summary` in D1 (written through meeting-data.ts), and what a summary is made from. D1 is the lock that makes a summary
 * once: the first writer claims an empty slot (`claimSummary`), and only a `pending` summary is
 * ever finished (`finishSummary`), so a second completion, a retry or a redelivery finds the slot
 * taken and never calls the model again.
 */
import { and, asc, eq, ne, not, sql } from "drizzle-orm";
import type { ModelEndpoint } from "../agent/model-client";
import { resolveMeetingModel } from "../agent/model-settings";
import { db } from "../db";
import { type MeetingRow, meetings, transcriptSegments } from "../db/schema";
import type { Env } from "../env";
import { hasDataKey, patchMeetingData } from "./meeting-data";
import { findReadableMeeting } from "./meeting-store";
import { type MeetingSummary, type SummaryLine, summaryOf } from "./meeting-summary";

/** Confirmed segments read for one summary at most (a day of talk); the character budget cuts further. */
const MAX_SEGMENTS = 20_000;

/**
 * The meeting model of the meeting's owner, as the copilot resolves it (their /user/models over
 * the deployment's: `meeting_model`, else `model`), or null when none is configured.
 */
export async function summaryModel(env: Env, userId: number): Promise<ModelEndpoint | null> {
	const resolved = await resolveMeetingModel(env, userId, null);
	return resolved.ok ? resolved.endpoint : null;
}

/** Sets `data.summary` on a completed meeting that has none yet: the record as written, or null when it already had one. */
export async function claimSummary(env: Env, meetingId: number, summary: MeetingSummary): Promise<MeetingRow | null> {
	const row = await patchMeetingData(
		env,
		meetingId,
		{ summary },
		{ where: and(eq(meetings.status, "completed"), not(hasDataKey("summary"))) },
	);
	return row ?? null;
}

/**
 * Sets `data.summary` back to `pending` on a completed meeting whose summary could not be made
 * (`failed`, `no_model`) or that completed before summaries were made: the owner asked again
 * (POST /meetings/{id}/summary). A `pending` or `ready` summary is never replaced, so a summary
 * is still made once. The record as written, or null when it was not in such a state.
 */
export async function reopenSummary(env: Env, meetingId: number, summary: MeetingSummary): Promise<MeetingRow | null> {
	const row = await patchMeetingData(
		env,
		meetingId,
		{ summary },
		{
			where: and(
				eq(meetings.status, "completed"),
				sql`(json_type(${meetings.data}, '$.summary') IS NULL OR json_extract(${meetings.data}, '$.summary.status') IN ('failed', 'no_model'))`,
			),
		},
	);
	return row ?? null;
}

/** Replaces a `pending` summary with its outcome; false when it was not pending (already finished, or the meeting is gone). */
export async function finishSummary(env: Env, meetingId: number, summary: MeetingSummary): Promise<boolean> {
	const row = await patchMeetingData(
		env,
		meetingId,
		{ summary },
		{ where: sql`json_extract(${meetings.data}, '$.summary.status') = 'pending'` },
	);
	return row !== undefined;
}

/** The meeting's confirmed transcript lines in time order, each segment once. */
export async function summaryLines(env: Env, meetingId: number): Promise<SummaryLine[]> {
	return db(env)
		.select({ speaker: transcriptSegments.speaker, text: transcriptSegments.text })
		.from(transcriptSegments)
		.where(and(eq(transcriptSegments.meetingId, meetingId), eq(transcriptSegments.completed, true), ne(transcriptSegments.text, "")))
		.orderBy(asc(transcriptSegments.start), asc(transcriptSegments.segmentId))
		.limit(MAX_SEGMENTS)
		.all();
}

/** `GET /meetings/{id}/summary` and the MCP tool: the summary of a meeting the reader may read. */
export type SummaryLookup = { ok: true; summary: MeetingSummary } | { ok: false; detail: string };

export async function readableSummary(env: Env, userId: number, meetingId: number): Promise<SummaryLookup> {
	const row = await findReadableMeeting(env, userId, meetingId);
	if (!row) return { ok: false, detail: "Meeting not found" };
	const summary = summaryOf(row.data);
	if (summary) return { ok: true, summary };
	return {
		ok: false,
		detail:
			row.status === "completed"
				? "This meeting has no summary: it completed before summaries were made"
				: `This meeting has no summary yet: one is made when it completes (it is ${row.status})`,
	};
}
