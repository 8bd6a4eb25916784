/** The server → client messages of `/ws` (contracts/ws.v1), built in one place. */

export interface MeetingRef {
	id: number;
	platform: string;
	native_id: string | null;
}

export interface LiveSegment {
	segment_id: string;
	speaker: string;
	speaker_source: string;
	text: string;
	start: number;
	end: number;
	start_time: number;
	end_time: number;
	language: string | null;
	completed: boolean;
	confidence?: number;
	words?: unknown[];
	absolute_start_time?: string;
	absolute_end_time?: string;
}

export function meetingStatusMessage(meeting: MeetingRef, userId: number, status: string, data: Record<string, unknown> | null) {
	return { type: "meeting.status", meeting, payload: { status, data }, user_id: userId, ts: new Date().toISOString() };
}

/** The per-speaker bundle: what was just confirmed, and the speaker's drafts still open. */
export function transcriptBundle(meeting: MeetingRef, speaker: string, confirmed: LiveSegment[], pending: LiveSegment[]) {
	return { type: "transcript", meeting, speaker, confirmed, pending, ts: new Date().toISOString() };
}

export function chatMessage(meeting: MeetingRef, message: { sender: string; text: string; timestamp: number; is_from_bot: boolean }) {
	return { type: "chat_message", meeting, ...message };
}

export function interactiveEvent(meeting: MeetingRef, name: string, payload: Record<string, unknown>) {
	return { type: name, meeting, ...payload, ts: new Date().toISOString() };
}
