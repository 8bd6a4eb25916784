/**
 * What the meeting stream's live copilot answers the Worker with (durable-objects/meeting-stream/
 * runs it; src/routes/agent-meeting.ts shows it): declared on the Worker's side, so its routes
 * import nothing from the object's folder.
 */

/** The live-meeting record (`meeting_id == session_uid == native_id`, docs/meeting-stream.md#identity-and-access). */
export interface LiveMeeting {
	meeting_id: string;
	session_uid: string;
	native_id: string;
	platform: string;
	title: string;
	processing: boolean;
	/** Our meeting record's id, which the copilot belongs to. */
	meeting: number;
}

/**
 * Where a meeting's copilot is (GET /agent/meeting/copilot): none was started, it follows the
 * meeting, it was paused (processing off), or the meeting ended.
 */
export const COPILOT_STATES = ["none", "running", "paused", "ended"] as const;
export type CopilotStatus = (typeof COPILOT_STATES)[number];

export type ProcessOutcome = { processing: true; resumed_from: string } | { processing: false };
