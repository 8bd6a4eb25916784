/** The server → client messages of `/ws` (docs/live-feed.md#server--client), built in one place as frames.ts declares them. */
import type { MeetingRow } from "../db/schema";
import { placementOf } from "../meetings/placement-record";
import type { StatusStep } from "../meetings/status-machine";
import type {
	ChatMessageFrame,
	ErrorFrame,
	InteractiveEventType,
	InteractiveFields,
	InteractiveFrame,
	LiveMeetingRef,
	LiveSegment,
	MeetingDiagnostics,
	MeetingHelp,
	MeetingStatusData,
	MeetingStatusFrame,
	TranscriptFrame,
} from "./frames";

/** A meeting as the frames name it (the Worker's name for LiveMeetingRef). */
export type MeetingRef = LiveMeetingRef;
export type { LiveSegment };

export function meetingStatusMessage(
	meeting: MeetingRef,
	userId: number,
	status: string,
	data: MeetingStatusData | null,
): MeetingStatusFrame {
	return { type: "meeting.status", meeting, payload: { status, data }, user_id: userId, ts: new Date().toISOString() };
}

/** A removed plan's last frame: the record is gone, so there is no status left to name. */
export const REMOVED_STATUS = "deleted";

export const meetingRefOf = (row: Pick<MeetingRow, "id" | "platform" | "nativeMeetingId">): MeetingRef => ({
	id: row.id,
	platform: row.platform,
	native_id: row.nativeMeetingId,
});

/**
 * The `meeting.status` frame of one step. `data` says why, when there is something to say: the
 * step's reason and completion reason (with its `completion_cause`), a failure's `failure_detail` and fleet `failure_cause`, an auto-join error.
 */
export function statusStepMessage(row: MeetingRow, step: StatusStep): MeetingStatusFrame {
	const failed = row.status === "failed";
	const failure = failed && typeof row.data.failure_detail === "string" ? row.data.failure_detail : null;
	const cause = failed && typeof row.data.failure_cause === "string" ? row.data.failure_cause : null;
	const completionCause = row.status === "completed" ? row.data.completion_cause : undefined;
	const autoJoinError = step.note && typeof row.data.auto_join_error === "string" ? row.data.auto_join_error : null;
	// As stored, with the screenshot link the room minted for this step (src/screenshots/screenshots.ts).
	const help = row.status === "needs_help" ? objectIn(row.data, "help") : null;
	const diagnostics = failed ? objectIn(row.data, "diagnostics") : null;
	const placement = step.note ? placementOf(row.data) : null;
	const data: MeetingStatusData = {
		reason: step.reason ?? null,
		completion_reason: row.completionReason,
		...(failure ? { failure_detail: failure } : {}),
		...(cause ? { failure_cause: cause } : {}),
		...(completionCause ? { completion_cause: completionCause } : {}),
		...(autoJoinError ? { auto_join_error: autoJoinError } : {}),
		...(help ? { help: help as unknown as MeetingHelp } : {}),
		...(diagnostics ? { diagnostics: diagnostics as unknown as MeetingDiagnostics } : {}),
		...(placement ? { placement } : {}),
	};
	const said = data.reason || data.completion_reason || failure || autoJoinError || placement || help || diagnostics;
	return meetingStatusMessage(meetingRefOf(row), row.userId, step.to ?? REMOVED_STATUS, said ? data : null);
}

function objectIn(data: Record<string, unknown>, key: string): Record<string, unknown> | null {
	const value = data[key];
	return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The per-speaker bundle: what was just confirmed, and the speaker's drafts still open. */
export function transcriptBundle(meeting: MeetingRef, speaker: string, confirmed: LiveSegment[], pending: LiveSegment[]): TranscriptFrame {
	return { type: "transcript", meeting, speaker, confirmed, pending, ts: new Date().toISOString() };
}

export function chatMessage(meeting: MeetingRef, message: Omit<ChatMessageFrame, "type" | "meeting">): ChatMessageFrame {
	return { type: "chat_message", meeting, ...message };
}

export function interactiveEvent(meeting: MeetingRef, name: InteractiveEventType, payload: InteractiveFields): InteractiveFrame {
	return { type: name, meeting, ...payload, ts: new Date().toISOString() };
}

/**
 * A socket opened only to say why it closes: /ws reports refusals in-band, since a browser
 * cannot read the status of a failed upgrade (docs/live-feed.md#connecting).
 */
/** From the /ws route to the user's LiveFeed: the id of the key a socket was opened with. */
export const KEY_ID_HEADER = "X-Key-Id";
/** And when that key expires (ms since the epoch), absent for a key that never does: the socket ends then. */
export const KEY_EXPIRES_HEADER = "X-Key-Expires-At";

/** The last frame of a socket whose key was revoked or expired while it was open (close code 4401). */
export const KEY_ENDED_FRAME: ErrorFrame = {
	type: "error",
	error: "authorization_service_error",
	status: 401,
	detail: "The API key this connection was opened with was revoked or has expired",
};

export function refusedSocket(error: Omit<ErrorFrame, "type">, code: number, reason: string): Response {
	const pair = new WebSocketPair();
	pair[1].accept();
	const frame: ErrorFrame = { type: "error", ...error };
	pair[1].send(JSON.stringify(frame));
	pair[1].close(code, reason);
	return new Response(null, { status: 101, webSocket: pair[0] });
}
