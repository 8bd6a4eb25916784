// Drizzle store: meeting lists and transcripts, as the REST routes and the agent read them.
import { z } from "@hono/zod-openapi";
import { and, asc, desc, eq, gte, inArray, lte, notInArray, type SQL } from "drizzle-orm";
import { db } from "../db";
import { meetings, transcriptSegments } from "../db/schema";
import type { Env } from "../env";
import { invalidField, notFound } from "../errors";
import { PLATFORMS } from "../platforms";
import { recordingsOfMeetings } from "../recordings/recording-store";
import { withLinkedData } from "../screenshots/screenshots";
import { peopleOf } from "./meeting-people";
import { findMeetingOnLink, findReadableMeeting, meetingView, readableBy } from "./meeting-store";
import { MEETING_STATUSES, PLANNED_STATUSES } from "./status-machine";
import { attributeTalk, type Person, talkBySpeaker } from "./talk-time";
import { segmentView } from "./transcript-store";
import type { TranscriptHead } from "./transcript-text";

/** Reading meetings and transcripts, shared by the REST routes and the agent's tools. */

/** Who reads: meetings they own or that a workspace they belong to holds. */
export interface Reader {
	userId: number;
}

/**
 * An ISO 8601 date-time, with `Z`, with an offset, or with neither (the reference's clients send
 * `2026-06-20T09:00:00`): a time without a zone is read as UTC (docs/api.md#conventions).
 * Normalize it with `utcIso` before storing or comparing.
 */
export const isoTimestamp = z.iso.datetime({ offset: true, local: true });

/** Ends with `Z` or a `±hh:mm` offset; anything else `isoTimestamp` accepts has no zone. */
const HAS_ZONE = /(?:Z|[+-]\d\d:\d\d)$/i;

/** An accepted `isoTimestamp` as stored and answered: UTC with `Z` (`2026-06-20T09:00:00.000Z`). */
export function utcIso(accepted: string): string {
	return new Date(HAS_ZONE.test(accepted) ? accepted : `${accepted}Z`).toISOString();
}

/** The filters of GET /meetings; the agent's list_meetings takes the same. */
export const ListMeetingsQuery = z.object({
	status: z.string().max(1000).optional(),
	platform: z.enum([...PLATFORMS, "unknown"]).optional(),
	created_after: isoTimestamp.optional(),
	created_before: isoTimestamp.optional(),
	scheduled_after: isoTimestamp.optional(),
	scheduled_before: isoTimestamp.optional(),
	limit: z.coerce.number().int().min(1).max(500).default(100),
	offset: z.coerce.number().int().min(0).default(0),
});
export type ListMeetingsQuery = z.infer<typeof ListMeetingsQuery>;

/**
 * GET /meetings' own filters besides the shared ones: `exclude_planned` (the reference's, for
 * history views) leaves plans out before the page is cut; an explicit `status` wins over it.
 */
export const MeetingListQuery = ListMeetingsQuery.extend({
	exclude_planned: z.stringbool().optional().openapi({
		type: "boolean",
		description: "true: leave plans (idle, scheduled) out before limit and offset apply; ignored when status is given",
	}),
});

/** Readable meetings matching the filters, newest first (GET /meetings). 422 for an unknown status. */
export async function listMeetings(env: Env, reader: Reader, q: ListMeetingsQuery & { exclude_planned?: boolean }) {
	const conditions: SQL[] = [readableBy(reader.userId)];
	if (!q.status && q.exclude_planned) conditions.push(notInArray(meetings.status, [...PLANNED_STATUSES]));
	if (q.status) {
		// De-duplicated: a repeated status must not grow the query past D1's parameter limit.
		const statuses = [...new Set(q.status.split(",").map((s) => s.trim()))];
		const unknown = statuses.filter((s) => !(MEETING_STATUSES as readonly string[]).includes(s));
		if (unknown.length) throw invalidField(["query", "status"], `Unknown status: ${unknown.join(", ")}`);
		conditions.push(inArray(meetings.status, statuses));
	}
	if (q.platform) conditions.push(eq(meetings.platform, q.platform));
	if (q.created_after) conditions.push(gte(meetings.createdAt, utcIso(q.created_after)));
	if (q.created_before) conditions.push(lte(meetings.createdAt, utcIso(q.created_before)));
	if (q.scheduled_after) conditions.push(gte(meetings.scheduledAt, utcIso(q.scheduled_after)));
	if (q.scheduled_before) conditions.push(lte(meetings.scheduledAt, utcIso(q.scheduled_before)));
	const rows = await db(env)
		.select()
		.from(meetings)
		.where(and(...conditions))
		.orderBy(desc(meetings.id))
		.limit(q.limit)
		.offset(q.offset)
		.all();
	const recorded = await recordingsOfMeetings(
		env,
		rows.map((r) => r.id),
	);
	return Promise.all(rows.map((r) => withLinkedData(env, meetingView(r, recorded.get(r.id)))));
}

/** What a meeting id that is not one is told (never zod's "expected number, received NaN"). */
const MEETING_ID_WORDS =
	"meeting_id must be a meeting's number (the id GET /meetings lists), such as 42; a meeting link or code is not one";

/** A meeting by its id, as GET /meetings/{meeting_id} names it. */
export const MeetingIdParam = z.object({
	meeting_id: z.coerce.number({ error: MEETING_ID_WORDS }).int({ error: MEETING_ID_WORDS }).positive({ error: MEETING_ID_WORDS }),
});

/** One readable meeting with its recordings (GET /meetings/{id}); 404 "Meeting not found" otherwise. */
export async function readableMeetingView(env: Env, reader: Reader, meetingId: number) {
	const row = await findReadableMeeting(env, reader.userId, meetingId);
	if (!row) throw notFound("Meeting not found");
	const recorded = await recordingsOfMeetings(env, [row.id]);
	return withLinkedData(env, meetingView(row, recorded.get(row.id)));
}

/** The newest started meeting on a link the reader may read; 404 "Meeting not found" otherwise. */
export async function startedMeeting(env: Env, reader: Reader, platform: string, nativeId: string) {
	const row = await findMeetingOnLink(env, reader.userId, platform, nativeId, { started: true });
	if (!row) throw notFound("Meeting not found");
	return row;
}

/** A meeting's transcript segments, ordered by start. */
export async function segmentsOf(env: Env, meetingId: number) {
	const rows = await db(env)
		.select()
		.from(transcriptSegments)
		.where(eq(transcriptSegments.meetingId, meetingId))
		.orderBy(asc(transcriptSegments.start), asc(transcriptSegments.segmentId))
		.all();
	return rows.map(segmentView);
}
export type SegmentView = Awaited<ReturnType<typeof segmentsOf>>[number];

/** The lines a plain-text transcript starts with: the meeting's name, link, status and times, as they are now. */
export async function transcriptHeadOf(env: Env, meetingId: number): Promise<TranscriptHead | undefined> {
	const row = await db(env)
		.select({
			platform: meetings.platform,
			native_meeting_id: meetings.nativeMeetingId,
			status: meetings.status,
			start_time: meetings.startTime,
			end_time: meetings.endTime,
			data: meetings.data,
		})
		.from(meetings)
		.where(eq(meetings.id, meetingId))
		.get();
	if (!row) return undefined;
	const { data, ...head } = row;
	return { ...head, title: typeof data.title === "string" ? data.title : null };
}

/** The transcript of the newest started meeting on a link (GET /transcripts/{platform}/{native_meeting_id}). */
export async function meetingTranscript(env: Env, reader: Reader, link: { platform: string; native_meeting_id: string }) {
	const head = await transcriptMeeting(env, reader, link);
	const [segments, people] = await Promise.all([segmentsOf(env, head.id), peopleOf(env, head.id)]);
	return withParticipants(head, people, segments);
}

/**
 * The transcript answer from its head, participants and segments: the participants' talk time
 * from the segments already read (talk-time.ts), `participants` before `segments`.
 */
export function withParticipants<H extends object>(head: H, people: Person[], segments: SegmentView[]) {
	const { participants } = attributeTalk(people, talkBySpeaker(segments));
	return { ...head, participants, segments };
}

/** Everything of a transcript but its segments: cheap to read whatever the meeting's length. */
export async function transcriptMeeting(env: Env, reader: Reader, link: { platform: string; native_meeting_id: string }) {
	const row = await startedMeeting(env, reader, link.platform, link.native_meeting_id);
	const m = meetingView(row, (await recordingsOfMeetings(env, [row.id])).get(row.id));
	return {
		id: m.id,
		platform: m.platform,
		native_meeting_id: m.native_meeting_id,
		constructed_meeting_url: m.constructed_meeting_url,
		status: m.status,
		start_time: m.start_time,
		end_time: m.end_time,
		recordings: m.recordings,
		notes: m.notes,
		completion_reason: m.completion_reason,
	};
}
