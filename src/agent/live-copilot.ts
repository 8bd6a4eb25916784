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

export type ProcessOutcome = { processing: true; resumed_from: string } | { processing: false };
