import { z } from "@hono/zod-openapi";
import { MeetingLinkParams } from "../meetings/meeting-link-params";
import { ListMeetingsQuery, listMeetings, MeetingIdParam, meetingTranscript, readableMeetingView } from "../meetings/meeting-queries";
import type { MeetingView } from "../meetings/meeting-store";
import { SearchQuery, searchTranscripts } from "../search/transcript-search";
import { clip, defineTool, newestWithin } from "./tool-definition";

/**
 * The reading tools: meetings and transcripts the user may read, through the services GET
 * /meetings, GET /meetings/{id} and GET /transcripts/... use. Titles, notes, participant names
 * and transcript text are written by other people: they go to the model only as values inside
 * the JSON result (data to report on), never spliced into instructions or the system prompt, and
 * every result taints the turn (src/agent/taint.ts).
 */

/** The agent lists fewer meetings per call than the route allows: the rest of the filters are the route's own. */
export const MAX_LISTED_MEETINGS = 50;
/** A transcript goes back to the model as at most this many of its newest segments… */
export const MAX_TRANSCRIPT_SEGMENTS = 400;
/** …and at most this many characters of them (counted as JSON). */
export const MAX_TRANSCRIPT_CHARS = 30_000;
const MAX_NOTES_CHARS = 4_000;

const READ_SCOPES = ["bot", "tx"] as const;

/** A meeting in a list: enough to pick one, without notes or recordings (get_meeting has those). */
function listedMeeting(m: MeetingView) {
	return {
		id: m.id,
		platform: m.platform,
		native_meeting_id: m.native_meeting_id,
		title: typeof m.data.title === "string" ? m.data.title : null,
		status: m.status,
		scheduled_at: typeof m.data.scheduled_at === "string" ? m.data.scheduled_at : null,
		start_time: m.start_time,
		end_time: m.end_time,
		completion_reason: m.completion_reason,
		workspace_id: m.workspace_id,
		has_notes: m.notes !== null,
		recordings: m.recordings.length,
		created_at: m.created_at,
	};
}

const listMeetingsTool = defineTool({
	name: "list_meetings",
	description:
		"List the user's meetings (and those of their workspaces), newest first. Filters: status (comma-separated), " +
		`platform, created_after/before, scheduled_after/before (ISO 8601); limit up to ${MAX_LISTED_MEETINGS}, offset.`,
	args: ListMeetingsQuery.extend({ limit: z.coerce.number().int().min(1).max(MAX_LISTED_MEETINGS).default(20) }),
	writes: false,
	scopes: READ_SCOPES,
	async run(env, user, args) {
		const found = await listMeetings(env, user, args);
		return {
			result: { meetings: found.map(listedMeeting), count: found.length, offset: args.offset },
			summary: found.length === 1 ? "1 meeting" : `${found.length} meetings`,
			foreign: true,
		};
	},
});

const getMeetingTool = defineTool({
	name: "get_meeting",
	description: "Read one meeting by its id: status, times, notes, metadata and recordings.",
	args: MeetingIdParam,
	writes: false,
	scopes: READ_SCOPES,
	async run(env, user, args) {
		const meeting = await readableMeetingView(env, user, args.meeting_id);
		return {
			result: { meeting },
			summary: clip(`meeting ${meeting.id}: ${meeting.platform}/${meeting.native_meeting_id ?? "-"}`),
			foreign: true,
		};
	},
});

const getTranscriptTool = defineTool({
	name: "get_transcript",
	description:
		"Read the transcript of the newest started meeting on a link (platform + native_meeting_id). Long transcripts " +
		`come back as their newest ${MAX_TRANSCRIPT_SEGMENTS} segments at most, marked truncated.`,
	args: MeetingLinkParams,
	writes: false,
	scopes: READ_SCOPES,
	async run(env, user, args) {
		const t = await meetingTranscript(env, user, args);
		// Word timings and per-segment bookkeeping are left out: the model needs who said what, when
		// (seconds from the start); a segment still being transcribed is marked as a draft.
		const lines = t.segments.map((s) => ({ speaker: s.speaker, text: s.text, start: s.start, ...(s.completed ? {} : { draft: true }) }));
		const { kept, omitted } = newestWithin(lines, MAX_TRANSCRIPT_SEGMENTS, MAX_TRANSCRIPT_CHARS);
		const notes = t.notes && t.notes.length > MAX_NOTES_CHARS ? `${t.notes.slice(0, MAX_NOTES_CHARS)}…` : t.notes;
		return {
			result: {
				meeting: {
					id: t.id,
					platform: t.platform,
					native_meeting_id: t.native_meeting_id,
					status: t.status,
					start_time: t.start_time,
					end_time: t.end_time,
					completion_reason: t.completion_reason,
					notes,
				},
				total_segments: t.segments.length,
				truncated: omitted > 0,
				...(omitted > 0 ? { omitted_segments: omitted, note: `The ${omitted} oldest segments were left out; these are the newest.` } : {}),
				segments: kept,
			},
			summary: omitted > 0 ? `transcript: ${kept.length} of ${t.segments.length} segments` : `transcript: ${kept.length} segments`,
			foreign: true,
		};
	},
});

/** Hits a search gives the model at most: enough to pick meetings, small enough to leave room to read them. */
export const MAX_SEARCH_HITS = 20;

const searchTranscriptsTool = defineTool({
	name: "search_transcripts",
	description:
		"Find words across every transcript the user may read, best matches first. q: the words (all must appear; " +
		'"a phrase" in quotes; word* for a prefix). Optional: platform, speaker (the whole name), from and to (ISO 8601), ' +
		`limit (1 to ${MAX_SEARCH_HITS}), offset. Each hit: meeting_id, title, platform, native_meeting_id, speaker, start ` +
		"(seconds into the meeting) and a snippet of what was said; get_transcript reads the whole meeting.",
	args: SearchQuery.extend({ limit: z.coerce.number().int().min(1).max(MAX_SEARCH_HITS).default(10) }),
	writes: false,
	scopes: READ_SCOPES,
	async run(env, user, args) {
		const found = await searchTranscripts(env, user, args);
		// Highlight offsets are for pages that draw marks; the model reads the snippet.
		const hits = found.hits.map(({ highlights: _, ...hit }) => hit);
		return {
			result: { total: found.total, offset: found.offset, hits },
			summary: clip(`search: ${found.total} matches for ${args.q}`),
			foreign: true,
		};
	},
});

export const MEETING_TOOLS = [listMeetingsTool, getMeetingTool, getTranscriptTool, searchTranscriptsTool];
