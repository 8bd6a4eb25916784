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

/** How one run of a workload ended; routines retry on `retryable` failures. */
export interface WorkloadOutcome {
	workload_id: string;
	ok: boolean;
	/** Why it failed, in words fit for a client (never a provider's raw text or a key). */
	detail?: string;
	/** A provider error worth retrying later (429, 5xx, a cut stream, a timeout). */
	retryable: boolean;
}

/** A `unit.v1` invocation as posted: 400 naming the first violation, or the envelope. SKELETON. */
export function checkInvocation(_body: unknown): EnvelopeCheck<Invocation> {
	return { ok: false, status: 400, detail: "Invocation envelope is not conformant" };
}

/** An `event.v1` event as posted: 400 naming the first violation, 422 without a plan, or the event. SKELETON. */
export function checkEvent(_body: unknown): EnvelopeCheck<AgentEvent> {
	return { ok: false, status: 400, detail: "Event envelope is not conformant" };
}
