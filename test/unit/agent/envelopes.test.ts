import { describe, expect, it } from "vitest";
import {
	type AgentEvent,
	checkEvent,
	checkInvocation,
	effectiveMode,
	type Invocation,
	invocationFromEvent,
	withCaller,
} from "../../../src/agent/envelopes";
import emailEvent from "../../worker/agent/golden/Event.email.json";
import meetingEvent from "../../worker/agent/golden/Event.meeting.json";
import eventInvocation from "../../worker/agent/golden/Invocation.event.json";
import messageInvocation from "../../worker/agent/golden/Invocation.message.json";
import scheduledInvocation from "../../worker/agent/golden/Invocation.scheduled.json";
import transcriptionInvocation from "../../worker/agent/golden/Invocation.transcription.json";

// The goldens are unit.v1 and event.v1 examples, kept unchanged; checkInvocation and checkEvent read them through the
// contract schemas in src/agent/contracts/.
const invocations = {
	event: eventInvocation,
	message: messageInvocation,
	scheduled: scheduledInvocation,
	transcription: transcriptionInvocation,
};
const message = messageInvocation as Invocation;
const clone = <T>(value: T): T => structuredClone(value);

function refused(body: unknown) {
	const check = checkInvocation(body);
	if (check.ok) throw new Error("expected a refusal");
	return check;
}

describe("checkInvocation (unit.v1)", () => {
	it.each(Object.entries(invocations))("accepts the %s golden as it is", (_name, golden) => {
		expect(checkInvocation(clone(golden))).toEqual({ ok: true, value: golden });
	});

	it.each([
		["subject", "u_mallory"],
		["workspace_repo", "git@example.com:x.git"],
		["plan", { prompt: "do it" }],
	])("refuses a top-level %s, naming it", (field, value) => {
		expect(refused({ ...clone(message), [field]: value })).toEqual({
			ok: false,
			status: 400,
			detail: expect.stringMatching(
				new RegExp(`^Invocation envelope is not conformant: /${field}: no top-level ${field} in an invocation`),
			),
		});
	});

	it("refuses a start with both an entrypoint and a session, or with neither", () => {
		const both = { ...clone(message), start: { entrypoint: { inline: "hi" }, session: { ref: ".session" } } };
		expect(refused(both).detail).toBe(
			"Invocation envelope is not conformant: /start: give exactly one of entrypoint or session (got both)",
		);
		expect(refused({ ...clone(message), start: {} }).detail).toBe(
			"Invocation envelope is not conformant: /start: give exactly one of entrypoint or session (got neither)",
		);
	});

	it("accepts a resumed session as the one start", () => {
		const resumed = { ...clone(message), start: { session: { ref: ".claude/.session" } } };
		expect(checkInvocation(resumed).ok).toBe(true);
	});

	it.each<[string, (body: Record<string, unknown>) => void, string]>([
		["a missing trigger", (b) => delete b.trigger, '/: missing required field "trigger"'],
		[
			"a missing identity launcher",
			(b) => delete (b.identity as Record<string, unknown>).launcher,
			'/identity: missing required field "launcher"',
		],
		["an unknown trigger", (b) => (b.trigger = "webhook"), '/trigger: must be one of ["message","scheduled","event","transcription"]'],
		["a mode outside ro/rw", (b) => (b.workspaces = [{ id: "u_jane", mode: "admin" }]), '/workspaces/0/mode: must be one of ["ro","rw"]'],
		["no workspaces", (b) => (b.workspaces = []), "/workspaces: must not be empty"],
		["a runner that is not a string", (b) => (b.runner = 7), '/runner: expected "string", got number'],
		["an unknown field", (b) => (b.priority = "high"), '/: unknown field "priority"'],
		[
			"an unknown field in a workspace",
			(b) => (b.workspaces = [{ id: "u_jane", mode: "ro", repo: "x" }]),
			'/workspaces/0: unknown field "repo"',
		],
		["an empty entrypoint", (b) => (b.start = { entrypoint: {} }), "/start/entrypoint: must not be empty"],
		[
			"an entrypoint that asks nothing",
			(b) => (b.start = { entrypoint: { inline: null } }),
			"/start/entrypoint: give a non-empty inline ask or a path",
		],
		[
			"a context kind outside the enum",
			(b) => (b.context = { kind: "slack" }),
			'/context/kind: must be one of ["none","meeting","email","generic"]',
		],
	])("refuses %s, naming where and what", (_name, mutate, where) => {
		const body = clone(message) as unknown as Record<string, unknown>;
		mutate(body);
		expect(refused(body)).toEqual({ ok: false, status: 400, detail: `Invocation envelope is not conformant: ${where}` });
	});

	it.each([
		["an array", []],
		["null", null],
		["a string", "invoke"],
	])("refuses %s as the body", (_name, body) => {
		expect(refused(body).detail).toBe("Invocation envelope is not conformant: /: expected an object");
	});
});

describe("checkEvent (event.v1)", () => {
	it("accepts the meeting golden as it is", () => {
		expect(checkEvent(clone(meetingEvent))).toEqual({ ok: true, value: meetingEvent });
	});

	it("answers the email golden, which has no plan, with 422", () => {
		expect(checkEvent(clone(emailEvent))).toEqual({
			ok: false,
			status: 422,
			detail: "The event carries no plan: give plan.prompt or plan.ref",
		});
	});

	it.each([
		["an empty plan", {}],
		["blank strings", { prompt: " ", ref: "" }],
	])("answers %s with 422", (_name, plan) => {
		expect(checkEvent({ ...clone(emailEvent), plan })).toMatchObject({ ok: false, status: 422 });
	});

	it("accepts the email golden once it names a plan doc", () => {
		expect(checkEvent({ ...clone(emailEvent), plan: { ref: "plan/inbox-triage.md" } }).ok).toBe(true);
	});

	it.each<[string, (body: Record<string, unknown>) => void, string]>([
		["a missing name", (b) => delete b.name, '/: missing required field "name"'],
		["a source without uri", (b) => (b.source = { etag: "x" }), '/source: missing required field "uri"'],
		["a meeting without session_uid", (b) => (b.meeting = { meeting_id: "m" }), '/meeting: missing required field "session_uid"'],
		["an unknown plan field", (b) => (b.plan = { prompt: "x", steps: [] }), '/plan: unknown field "steps"'],
		["a numeric prompt", (b) => (b.plan = { prompt: 3 }), '/plan/prompt: expected "string", got number'],
	])("refuses %s with 400 before looking at the plan", (_name, mutate, where) => {
		const body = clone(meetingEvent) as unknown as Record<string, unknown>;
		mutate(body);
		expect(checkEvent(body)).toEqual({ ok: false, status: 400, detail: `Event envelope is not conformant: ${where}` });
	});
});

describe("invocationFromEvent", () => {
	it("maps meeting.completed to a transcription grounded in the meeting, read-only, for the given subject", () => {
		const invocation = invocationFromEvent(meetingEvent as AgentEvent, "42");
		expect(invocation).toEqual({
			identity: { subject: "42", launcher: "integration:meetings" },
			runner: "edge",
			workspaces: [{ id: "42", mode: "ro" }],
			trigger: "transcription",
			context: { kind: "meeting", meeting: meetingEvent.meeting },
			start: { entrypoint: { inline: meetingEvent.plan.prompt } },
		});
		expect(checkInvocation(invocation).ok).toBe(true);
	});

	it("maps another event to trigger event, launched by its integration, grounded in its source", () => {
		const invocation = invocationFromEvent({ ...emailEvent, plan: { ref: "plan/inbox-triage.md" } }, "42");
		expect(invocation.trigger).toBe("event");
		expect(invocation.identity).toEqual({ subject: "42", launcher: "integration:email" });
		expect(invocation.context).toEqual({ kind: "generic", ref: emailEvent.source });
		expect(invocation.start).toEqual({ entrypoint: { path: "plan/inbox-triage.md" } });
		expect(checkInvocation(invocation).ok).toBe(true);
	});

	it("lets plan.prompt win over plan.ref, and grounds an event without source or meeting in nothing", () => {
		const invocation = invocationFromEvent(
			{ name: "task.transition", subject: "u_x", plan: { prompt: "Triage it", ref: "plan/x.md" } },
			"42",
		);
		expect(invocation.start).toEqual({ entrypoint: { inline: "Triage it" } });
		expect(invocation.context).toEqual({ kind: "none" });
		expect(invocation.identity.subject).toBe("42");
	});
});

describe("withCaller and effectiveMode", () => {
	it("rewrites the identity from the key: a client's subject, launcher and token do not survive", () => {
		const posted = { ...clone(message), identity: { subject: "u_mallory", launcher: "schedule:x", token: "forged" } };
		const own = withCaller(posted, "42");
		expect(own.identity).toEqual({ subject: "42", launcher: "user:42" });
		expect(own.start).toEqual(posted.start);
	});

	it.each<[string, Invocation["trigger"], ("ro" | "rw")[], "ro" | "rw"]>([
		["a message asking rw", "message", ["rw"], "rw"],
		["a scheduled run asking rw among ro", "scheduled", ["ro", "rw"], "rw"],
		["a message asking only ro", "message", ["ro"], "ro"],
		["an event asking rw", "event", ["rw"], "ro"],
		["a transcription asking rw", "transcription", ["rw", "rw"], "ro"],
	])("runs %s as %s", (_name, trigger, modes, expected) => {
		const invocation = { ...clone(message), trigger, workspaces: modes.map((mode, i) => ({ id: `w${i}`, mode })) };
		expect(effectiveMode(invocation)).toBe(expected);
	});
});
