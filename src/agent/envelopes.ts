/**
 * The agent's envelopes: `unit.v1` invocations and `event.v1` events (docs/agent.md#envelopes).
 * The types are the contract between the routes, the runtime and the routines.
 */
import { type OutputUnit, type Schema, Validator } from "@cfworker/json-schema";
import eventSchema from "./contracts/event.schema.json";
import unitSchema from "./contracts/unit.schema.json";
import { AGENT_TOOL_NAMES, type WorkloadMode } from "./tools";

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
	/** The agent's reply in the last run (what it said, whether or not the run succeeded); absent when no turn ran. */
	reply?: string | null;
}

/** The subject an agent acts for: the key's user (workload ids, workspaces and identities name it). */
export const subjectFor = (userId: number): string => String(userId);

/** Every workload id starts with this, as the reference's `agent-<subject>-…` ids do: an id names its owner. */
export const workloadIdPrefix = (subject: string): string => `agent-${subject}-`;

export const workloadBelongsTo = (workloadId: string, subject: string): boolean => workloadId.startsWith(workloadIdPrefix(subject));

// The contract schemas (src/agent/contracts/, kept unchanged): the validator reads the envelope's
// root from their `$defs`. @cfworker/json-schema interprets schemas without `new Function`,
// which workerd forbids (ajv compiles with it).
const validators = {
	Invocation: new Validator({ $ref: "#/$defs/Invocation", $defs: unitSchema.$defs } as Schema, "2020-12", false),
	Event: new Validator({ $ref: "#/$defs/Event", $defs: eventSchema.$defs } as Schema, "2020-12", false),
};

const TOP_LEVEL_REFUSED: Record<string, string> = {
	subject: "the subject comes from the API key, not the body",
	workspace_repo: "workspaces are named in workspaces[]",
	plan: "the plan goes in start.entrypoint",
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** `#/workspaces/0/mode` as a JSON Pointer a client can follow (`/` is the body itself). */
const pointer = (instanceLocation: string) => instanceLocation.replace(/^#/, "") || "/";

/** The field a message names; a client's own key, so cut short rather than echoed whole. */
const quoted = (message: string) => (message.match(/"([^"]*)"/)?.[1] ?? "").slice(0, 100);

/**
 * The first violation the validator found, in words: the keywords that only say "a part
 * below failed" ($ref, properties, items) are skipped so the deepest cause is named.
 */
function firstViolation(errors: OutputUnit[]): string {
	const wrappers = new Set(["$ref", "properties", "items", "prefixItems", "allOf", "false"]);
	const error = errors.find((e) => !wrappers.has(e.keyword)) ?? errors[0];
	if (!error) return "/: not conformant";
	const at = pointer(error.instanceLocation);
	switch (error.keyword) {
		case "required":
			return `${at}: missing required field "${quoted(error.error)}"`;
		case "additionalProperties":
			return `${at}: unknown field "${quoted(error.error)}"`;
		case "type":
			return `${at}: ${error.error.replace(/^Instance type "([^"]+)" is invalid\. Expected (.+)\.$/, "expected $2, got $1")}`;
		case "enum":
			return `${at}: ${error.error.replace(/^Instance does not match any of (.+)\.$/, "must be one of $1")}`;
		case "minItems":
		case "minProperties":
			return `${at}: must not be empty`;
		default:
			return `${at}: ${error.error}`;
	}
}

/** The spec's rules on an invocation, said plainly before the schema speaks (it implies them, tersely). */
function invocationRuleBroken(body: Record<string, unknown>): string | null {
	for (const [field, why] of Object.entries(TOP_LEVEL_REFUSED)) {
		if (field in body) return `/${field}: no top-level ${field} in an invocation (${why})`;
	}
	const start = body.start;
	if (isObject(start)) {
		const forms = ["entrypoint", "session"].filter((form) => form in start);
		if (forms.length !== 1) return `/start: give exactly one of entrypoint or session (got ${forms.length === 0 ? "neither" : "both"})`;
	}
	return null;
}

/** A `unit.v1` invocation as posted: 400 naming the first violation, or the envelope. */
export function checkInvocation(body: unknown): EnvelopeCheck<Invocation> {
	const notConformant = (why: string) => ({
		ok: false as const,
		status: 400 as const,
		detail: `Invocation envelope is not conformant: ${why}`,
	});
	if (!isObject(body)) return notConformant("/: expected an object");
	const broken = invocationRuleBroken(body);
	if (broken) return notConformant(broken);
	const result = validators.Invocation.validate(body);
	if (!result.valid) return notConformant(firstViolation(result.errors));
	const invocation = body as unknown as Invocation;
	// The schema lets `{entrypoint: {inline: null}}` through; it asks nothing, so there is nothing to run.
	if ("entrypoint" in invocation.start && !invocation.start.entrypoint.inline?.trim() && !invocation.start.entrypoint.path?.trim()) {
		return notConformant("/start/entrypoint: give a non-empty inline ask or a path");
	}
	return { ok: true, value: invocation };
}

/**
 * The names in an invocation's `tools` list that no tool of the agent has. They grant nothing
 * (the list stays an allow-list of what exists); the reference drops them silently, and its own
 * contract example names `gmail.read`, so they are reported in the 202 instead of refused.
 */
export function unknownTools(invocation: Pick<Invocation, "tools">): string[] {
	return [...new Set(invocation.tools?.filter((name) => !AGENT_TOOL_NAMES.includes(name)))];
}

/** An `event.v1` event as posted: 400 naming the first violation, 422 without a plan, or the event. */
export function checkEvent(body: unknown): EnvelopeCheck<AgentEvent> {
	const notConformant = (why: string) => ({ ok: false as const, status: 400 as const, detail: `Event envelope is not conformant: ${why}` });
	if (!isObject(body)) return notConformant("/: expected an object");
	const result = validators.Event.validate(body);
	if (!result.valid) return notConformant(firstViolation(result.errors));
	const event = body as unknown as AgentEvent;
	// The contract lets an ingress apply a default plan per event name; this one registers none.
	if (!event.plan?.prompt?.trim() && !event.plan?.ref?.trim()) {
		return { ok: false, status: 422, detail: "The event carries no plan: give plan.prompt or plan.ref" };
	}
	return { ok: true, value: event };
}

/**
 * An event as the invocation it fires (the reference's mapping): a finished meeting is a
 * `transcription` grounded in that meeting, anything else an `event`; it acts for `subject`
 * (the key's user, never the body's) on their own workspace, read-only.
 */
export function invocationFromEvent(event: AgentEvent, subject: string): Invocation {
	const isMeeting = event.name.startsWith("meeting.");
	const context: Invocation["context"] = event.meeting
		? { kind: "meeting", meeting: event.meeting }
		: event.source
			? { kind: "generic", ref: event.source }
			: { kind: "none" };
	const prompt = event.plan?.prompt?.trim() ? event.plan.prompt : null;
	return {
		identity: { subject, launcher: isMeeting ? "integration:meetings" : `integration:${event.name.split(".")[0]}` },
		runner: "edge",
		workspaces: [{ id: subject, mode: "ro" }],
		trigger: event.name === "meeting.completed" ? "transcription" : "event",
		context,
		start: { entrypoint: prompt !== null ? { inline: prompt } : { path: event.plan?.ref ?? "" } },
	};
}

/**
 * A posted invocation as the caller's own: the identity is rewritten from the key, so a
 * client-sent subject, launcher or token never survives.
 */
export function withCaller(invocation: Invocation, subject: string): Invocation {
	return { ...invocation, identity: { subject, launcher: `user:${subject}` } };
}

/** The mode a workload runs in: `rw` only when its trigger earns it and it asked to write somewhere. */
export function effectiveMode(invocation: Invocation): WorkloadMode {
	if (derivedMode(invocation.trigger) !== "rw") return "ro";
	return invocation.workspaces.some((workspace) => workspace.mode === "rw") ? "rw" : "ro";
}
