/**
 * The agent's envelopes: `unit.v1` invocations and `event.v1` events (docs/agent.md#envelopes).
 * SKELETON: the types are the contract between the routes, the runtime and the routines.
 */
import type { WorkloadMode } from "./tools";

export type Trigger = "message" | "scheduled" | "event" | "transcription";

export interface MeetingRef {
	meeting_id: string;
	session_uid: string;
	platform?: string;
}

export interface Invocation {
	identity: { subject: string; launcher: string; token?: string | null };
	runner: string;
	workspaces: { id: string; mode: WorkloadMode }[];
	tools?: string[];
	trigger: Trigger;
	context?: { kind: "none" | "meeting" | "email" | "generic"; meeting?: MeetingRef; ref?: { uri: string; etag?: string } };
	start: { entrypoint: { inline?: string | null; path?: string } } | { session: { ref: string } };
}

export interface AgentEvent {
	name: string;
	subject: string;
	occurred_at?: string;
	source?: { uri: string; etag?: string };
	meeting?: MeetingRef;
	plan?: { ref?: string; prompt?: string };
}

export type EnvelopeCheck<T> = { ok: true; value: T } | { ok: false; status: 400 | 422; detail: string };

/** The mode a trigger earns: only a user's own message or their schedule may write. */
export function derivedMode(trigger: Trigger): WorkloadMode {
	return trigger === "message" || trigger === "scheduled" ? "rw" : "ro";
}
