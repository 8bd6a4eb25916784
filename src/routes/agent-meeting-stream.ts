import { createRoute, z } from "@hono/zod-openapi";
import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { notFound } from "../errors";
import { findMeetingOnLink, findReadableMeeting, sessionUidOf } from "../meetings/meeting-store";
import { isTerminal, type MeetingStatus } from "../meetings/status-machine";
import { liveFeed, meetingStream } from "../objects";
import { lastEventId } from "./last-event-id";
import { routeModule } from "./openapi-app";

/**
 * GET /agent[/api]/meeting/stream (docs/meeting-stream.md): the meeting's Server-Sent Events,
 * served by its own MeetingStream object and passed through unchanged. Mounted by agent-meeting.ts.
 */
export const agentMeetingStreamRoutes = routeModule();

const StreamQuery = z.object({
	meeting_id: z.string().trim().min(1).max(200).openapi({
		description: "Our numeric meeting id, or the meeting's native id (the copilot's `meeting_id == session_uid == native_id`)",
	}),
	session_uid: z
		.string()
		.trim()
		.min(1)
		.max(200)
		.optional()
		.openapi({ description: "When given, must be the meeting's session uid (its native id) or its record id" }),
	platform: z.string().min(1).max(50).optional().openapi({ description: "Narrows a native id to one platform" }),
	last_event_id: z.string().max(30).optional().openapi({ description: "Resume cursor for clients that cannot send `Last-Event-ID`" }),
});

/**
 * `meeting_id` is our id or a native id (a Zoom native id is numeric too, so an id that names no
 * readable meeting with a matching session uid is tried as a native id). Anything the caller may
 * not read is "not found", so the route never tells whether someone else's meeting exists.
 */
export async function streamedMeeting(
	env: Env,
	userId: number,
	query: { meeting_id: string; session_uid?: string; platform?: string },
): Promise<MeetingRow> {
	// The reference's own client sends the record id as session_uid; the identity rule's is the native id.
	const matches = (row: MeetingRow | undefined): row is MeetingRow =>
		row !== undefined &&
		(query.session_uid === undefined || query.session_uid === sessionUidOf(row) || query.session_uid === String(row.id));
	const id = /^[0-9]{1,15}$/.test(query.meeting_id) ? Number(query.meeting_id) : null;
	const byId = id === null ? undefined : await findReadableMeeting(env, userId, id);
	if (matches(byId) && (query.platform === undefined || byId.platform === query.platform)) return byId;
	const byNativeId = await findMeetingOnLink(env, userId, query.platform ?? null, query.meeting_id);
	if (matches(byNativeId)) return byNativeId;
	throw notFound("Meeting not found");
}

agentMeetingStreamRoutes.openapi(
	createRoute({
		method: "get",
		path: "/meeting/stream",
		request: { query: StreamQuery },
		responses: {
			200: {
				content: { "text/event-stream": { schema: z.string() } },
				description:
					"Server-Sent Events: one `data:` JSON event per logged event (transcript, note, card, message-delta, tool-call, " +
					"meeting-end) with an `id:` that `Last-Event-ID` resumes after; `ping` events (carrying the last id) while quiet. " +
					"A reader who loses access gets a last `error` event (`reason: access_revoked`) and the stream ends.",
			},
		},
	}),
	async (c) => {
		const query = c.req.valid("query");
		const cursor = lastEventId(c);
		const { userId, tokenId } = c.get("identity");
		const row = await streamedMeeting(c.env, userId, query);
		const status = row.status as MeetingStatus;
		const ended = isTerminal(status) ? { status, completion_reason: row.completionReason } : null;
		const response = await meetingStream(c.env, row.id).open(row.id, { userId, tokenId }, cursor, ended, row.startTime);
		// Remembered with the user's /ws subscriptions, so losing access ends the stream as it ends those.
		await liveFeed(c.env, userId).streamOpened(userId, row.id);
		// The object's stream goes out as it is: wrapping it would buffer or re-encode it.
		return response as unknown as ReturnType<typeof c.body>;
	},
);
