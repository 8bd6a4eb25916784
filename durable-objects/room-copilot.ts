import type { AgentCaller } from "../src/agent/caller";
import type { RoomCore } from "./room-core";
import type { StreamTranscript } from "./room-stream";

/** The live-meeting record (`meeting_id == session_uid == native_id`, the spec's identity rule). */
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

export interface CopilotStart {
	caller: AgentCaller;
	/** The meeting's owner: their model and their workspace, whoever started the copilot. */
	ownerId: number;
	meetingId: number;
	nativeId: string;
	platform: string;
	title: string | null;
}

export type ProcessOutcome = { processing: true; resumed_from: string } | { processing: false };

/**
 * SKELETON (h-copilot): the live meeting copilot, inside the meeting's room. While processing
 * is on it follows the transcript from its cursor: a baseline note per segment at once, and a
 * model beat on a new speaker or every few segments producing cards; at the end a final beat and
 * the meeting written and committed to the owner's workspace.
 */
export class RoomCopilot {
	constructor(readonly room: RoomCore) {}

	async start(_start: CopilotStart): Promise<LiveMeeting> {
		throw new Error("SKELETON: RoomCopilot.start");
	}

	async process(_on: boolean): Promise<ProcessOutcome | null> {
		throw new Error("SKELETON: RoomCopilot.process");
	}

	/** A transcript event was logged at `seq`: follow it when processing is on (never blocks the caller). */
	transcriptLogged(_seq: number, _line: StreamTranscript): void {}

	/** The meeting reached a terminal status: the final beat and the meeting document follow. */
	async meetingEnded(): Promise<void> {}
}
