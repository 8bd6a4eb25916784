import type { MeetingRow } from "../db/schema";
import type { Env } from "../env";
import { errorName } from "../error-text";
import { sessionUidOf } from "../meetings/meeting-store";
import { agentUser } from "../objects";

/**
 * Tells a user's agent object that one of their meetings completed, so their event routines
 * (docs/agent.md#routines) run for it. The object only queues the runs; this never throws, and
 * the caller hands it to waitUntil so the status write never waits on it.
 */
export async function tellAgentMeetingCompleted(env: Env, row: MeetingRow): Promise<void> {
	try {
		await agentUser(env, row.userId).meetingEvent({
			name: "meeting.completed",
			meeting: { meeting_id: String(row.id), session_uid: sessionUidOf(row), platform: row.platform },
		});
	} catch (err) {
		console.error("agent not told of a completed meeting", row.id, errorName(err));
	}
}
