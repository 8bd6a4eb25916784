/**
 * What one run of a routine is: a `unit.v1` invocation for the user's own agent
 * (docs/agent.md#runs). A scheduled run is the user's own schedule (`scheduled`, so `rw`); a run
 * on a meeting event carries that meeting as context and only reads (`transcription`, `ro`),
 * since the meeting's words are not the user's.
 */
import { derivedMode, type Invocation, type MeetingRef, type Trigger } from "./envelopes";

/** The events a routine may wait for: the user's own meeting events. */
export const ROUTINE_EVENTS = ["meeting.completed"] as const;
export type RoutineEvent = (typeof ROUTINE_EVENTS)[number];

export interface MeetingEvent {
	name: string;
	meeting: MeetingRef;
}

/** The parts of a routine a run needs. */
export interface RoutinePlan {
	id: string;
	userId: number;
	prompt: string;
}

export function scheduledInvocation(routine: RoutinePlan): Invocation {
	return invocation(routine, "scheduled", `schedule:${routine.id}`, { kind: "none" });
}

export function meetingEventInvocation(routine: RoutinePlan, event: MeetingEvent): Invocation {
	// A finished meeting is a transcription trigger, the way event.v1 maps meeting.completed.
	const trigger: Trigger = event.name === "meeting.completed" ? "transcription" : "event";
	return invocation(routine, trigger, "integration:meetings", { kind: "meeting", meeting: event.meeting });
}

function invocation(routine: RoutinePlan, trigger: Trigger, launcher: string, context: Invocation["context"]): Invocation {
	const subject = String(routine.userId);
	return {
		identity: { subject, launcher },
		runner: "edge",
		workspaces: [{ id: subject, mode: derivedMode(trigger) }],
		trigger,
		context,
		start: { entrypoint: { inline: routine.prompt } },
	};
}
