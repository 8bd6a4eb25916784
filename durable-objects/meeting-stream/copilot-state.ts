/**
 * What the live copilot keeps and shows (meeting-stream/copilot.ts runs it): the stored state, the
 * record the routes answer with, and the pure rules over them.
 */
import type { AgentCaller } from "../../src/agent/caller";
import { type CopilotConfig, copilotConfigOf } from "../../src/agent/copilot-document";
import type { LiveMeeting } from "../../src/agent/live-copilot";
import type { StoredCard } from "./cards";
import type { MeetingEnd } from "./log";

export type { CopilotStatus, LiveMeeting, ProcessOutcome } from "../../src/agent/live-copilot";

/** A start, by the meeting's owner (the Worker checked): the copilot is theirs, their model and their workspace. */
export interface CopilotStart {
	caller: AgentCaller;
	meetingId: number;
	nativeId: string;
	platform: string;
	title: string | null;
}

/** What the copilot keeps (STREAM_KEYS.copilot): how it was started, and how far it got. */
export interface CopilotState extends CopilotStart {
	/** Whose copilot it is: their model, their workspace; only they restart it. */
	ownerId: number;
	config: CopilotConfig;
	processing: boolean;
	/** The last transcript seq that got its note: resuming starts after it. */
	cursor: number;
	/** The last transcript seq a beat has seen. */
	beatCursor: number;
	/** Completed segments since the last beat. */
	pending: number;
	/** The cards shown so far, one per thing remembered (absent in older states: none). */
	cards?: StoredCard[];
	lastSpeaker: string | null;
	ended: boolean;
	/** How the meeting ended: the `meeting-end` this copilot logs after its final beat (and whether it has; absent in older states). */
	end?: MeetingEnd | null;
	endLogged?: boolean;
	/** When the meeting started (the room's record says), the meeting document's date. */
	startedAt?: string | null;
	/** The final beat's summary, kept so a retry after a failed commit does not ask the model again. */
	summary: string | null;
	finalAttempts: number;
	documented: boolean;
}

/** How the transcript reaches the stream, whether or not the copilot processes it (relay-health). */
export interface CopilotIngest {
	segments: number;
	last_segment_at: string | null;
}

/**
 * Whether the owner's own key started the copilot. One a member started before starts were the
 * owner's alone never calls the owner's model nor commits to their workspace (it writes notes only).
 */
export const startedByOwner = (state: CopilotState) => state.caller.userId === state.ownerId;

export function freshState(start: CopilotStart): CopilotState {
	return {
		caller: start.caller,
		ownerId: start.caller.userId,
		meetingId: start.meetingId,
		nativeId: start.nativeId,
		platform: start.platform,
		title: start.title,
		config: copilotConfigOf(null),
		processing: true,
		cursor: 0,
		beatCursor: 0,
		pending: 0,
		lastSpeaker: null,
		ended: false,
		summary: null,
		finalAttempts: 0,
		documented: false,
	};
}

export function liveMeetingOf(state: CopilotState | undefined): LiveMeeting {
	if (!state) throw new Error("copilot state was not stored");
	return {
		meeting_id: state.nativeId,
		session_uid: state.nativeId,
		native_id: state.nativeId,
		platform: state.platform,
		// The reference names an untitled live meeting by its link.
		title: state.title ?? `${state.platform} · ${state.nativeId}`,
		processing: state.processing,
		meeting: state.meetingId,
	};
}
