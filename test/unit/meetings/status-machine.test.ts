import { describe, expect, it } from "vitest";
import { CompletionReason } from "../../../src/bot-channel/protocol";
import {
	type Actor,
	actorsFor,
	type FailureStage,
	initialState,
	isLive,
	isPlanned,
	isTerminal,
	MEETING_STATUSES,
	type MeetingState,
	type MeetingStatus,
	mayCreate,
	mayRemove,
	REASON_OUTCOME,
	RETRYABLE_REASONS,
	type TransitionRequest,
	transition,
} from "../../../src/meetings/status-machine";

const ACTORS: Actor[] = ["user", "bot", "system", "scheduler", "calendar"];

/** Written out independently of the module's table: every legal move between two statuses. */
const LEGAL = new Set([
	"idle→scheduled:user",
	"idle→scheduled:calendar",
	"scheduled→idle:user",
	"idle→requested:user",
	"scheduled→requested:user",
	"scheduled→requested:scheduler",
	// Give-back: a claim whose bot never got going returns to its plan (launch broke, or the bot host refused an auto-join spawn).
	"requested→idle:user",
	"requested→scheduled:user",
	"requested→scheduled:scheduler",
	"requested→joining:bot",
	"needs_help→joining:bot",
	"requested→awaiting_admission:bot",
	"joining→awaiting_admission:bot",
	"needs_help→awaiting_admission:bot",
	"requested→active:bot",
	"joining→active:bot",
	"awaiting_admission→active:bot",
	"needs_help→active:bot",
	...["requested", "joining", "awaiting_admission", "active"].map((s) => `${s}→needs_help:bot`),
	...["requested", "joining", "awaiting_admission", "needs_help", "active"].flatMap((s) => [`${s}→stopping:user`, `${s}→stopping:system`]),
	...["requested", "joining", "awaiting_admission", "needs_help", "active", "stopping"].flatMap((s) => [
		`${s}→completed:user`,
		`${s}→completed:bot`,
		`${s}→completed:system`,
		`${s}→failed:bot`,
		`${s}→failed:system`,
	]),
]);

/** Creation (from no record) and removal (to no record), written out the same way. */
const CREATES = new Set(["idle:user", "scheduled:user", "scheduled:calendar", "requested:user"]);
// An ended meeting is removed by its owner's DELETE /meetings (docs/retention.md#deleting-a-meeting).
const REMOVES = new Set([
	"idle:user",
	"idle:calendar",
	"scheduled:user",
	"scheduled:calendar",
	"requested:user",
	"completed:user",
	"failed:user",
]);

const state = (status: MeetingStatus, reached_stage: FailureStage | null = null): MeetingState => ({
	status,
	completion_reason: null,
	failure_stage: null,
	reached_stage,
});

describe("the move table", () => {
	const combos = MEETING_STATUSES.flatMap((from) =>
		MEETING_STATUSES.filter((to) => to !== from).flatMap((to) => ACTORS.map((actor) => [from, to, actor] as const)),
	);

	it.each(combos)("%s → %s by %s is allowed exactly when listed", (from, to, actor) => {
		const result = transition(state(from), { to, actor });
		expect(result.ok).toBe(LEGAL.has(`${from}→${to}:${actor}`));
		if (!result.ok) {
			const expected = isTerminal(from) ? "terminal" : actorsFor(from, to).length === 0 ? "illegal_move" : "not_permitted";
			expect(result.refusal).toBe(expected);
		}
	});

	it.each(MEETING_STATUSES.flatMap((status) => ACTORS.map((actor) => [status, actor] as const)))(
		"creating or removing a %s record by %s is allowed exactly when listed",
		(status, actor) => {
			expect(mayCreate(status, actor)).toBe(CREATES.has(`${status}:${actor}`));
			expect(mayRemove(status, actor)).toBe(REMOVES.has(`${status}:${actor}`));
		},
	);

	it("refuses every move out of a terminal status, even to itself", () => {
		for (const from of ["completed", "failed"] as const)
			for (const to of MEETING_STATUSES)
				for (const actor of ACTORS) expect(transition(state(from), { to, actor })).toMatchObject({ ok: false, refusal: "terminal" });
	});

	it("leaves the given state untouched when it refuses", () => {
		const before = state("active", "active");
		const snapshot = structuredClone(before);
		const result = transition(before, { to: "requested", actor: "bot" });
		expect(result.ok).toBe(false);
		expect(before).toEqual(snapshot);
	});
});

describe("repeated reports", () => {
	it.each([
		["active", "bot"],
		["joining", "bot"],
		["awaiting_admission", "bot"],
		["stopping", "user"],
		["stopping", "system"],
		["scheduled", "user"],
		["idle", "user"],
	] as const)("%s again by %s is accepted without a change", (status, actor) => {
		const result = transition(state(status), { to: status, actor });
		expect(result).toMatchObject({ ok: true, changed: false, state: { status } });
	});

	it("refuses a second request for a meeting already requested", () => {
		expect(transition(state("requested"), { to: "requested", actor: "user" })).toMatchObject({ ok: false, refusal: "illegal_move" });
	});

	it("refuses a repeated report from an actor that could not have made it", () => {
		expect(transition(state("active"), { to: "active", actor: "user" })).toMatchObject({ ok: false, refusal: "not_permitted" });
	});
});

type Ending = [name: string, from: MeetingState, request: TransitionRequest, expected: Omit<MeetingState, "reached_stage">];
const ENDINGS: Ending[] = [
	// A user stop always wins.
	[
		"user stop while active",
		state("active"),
		{ to: "completed", actor: "user" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	[
		"user stop before the bot reported",
		state("requested"),
		{ to: "completed", actor: "user", completion_reason: "join_failure" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	[
		"bot fails after a stop",
		state("stopping", "joining"),
		{ to: "failed", actor: "bot", completion_reason: "join_failure" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	[
		"bot completes after a stop",
		state("stopping", "active"),
		{ to: "completed", actor: "bot", completion_reason: "left_alone" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	[
		"watchdog ends a stop the bot never confirmed",
		state("stopping", "awaiting_admission"),
		{ to: "failed", actor: "system" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	// The bot's reason decides the outcome.
	[
		"left alone",
		state("active"),
		{ to: "completed", actor: "bot", completion_reason: "left_alone" },
		{ status: "completed", completion_reason: "left_alone", failure_stage: null },
	],
	[
		"nobody came",
		state("active"),
		{ to: "completed", actor: "bot", completion_reason: "startup_alone" },
		{ status: "completed", completion_reason: "startup_alone", failure_stage: null },
	],
	[
		"max bot time",
		state("active"),
		{ to: "completed", actor: "bot", completion_reason: "max_bot_time_exceeded" },
		{ status: "completed", completion_reason: "max_bot_time_exceeded", failure_stage: null },
	],
	[
		"removed by the host",
		state("active"),
		{ to: "completed", actor: "bot", completion_reason: "evicted" },
		{ status: "failed", completion_reason: "evicted", failure_stage: "active" },
	],
	[
		"denied in the lobby (contract name)",
		state("awaiting_admission"),
		{ to: "failed", actor: "bot", completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
		{ status: "failed", completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
	],
	[
		"lobby timeout reported as completed",
		state("awaiting_admission"),
		{ to: "completed", actor: "bot", completion_reason: "awaiting_admission_timeout" },
		{ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" },
	],
	[
		"join failure",
		state("joining"),
		{ to: "failed", actor: "bot", completion_reason: "join_failure" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "joining" },
	],
	[
		"bad input",
		state("requested"),
		{ to: "failed", actor: "bot", completion_reason: "validation_error" },
		{ status: "failed", completion_reason: "validation_error", failure_stage: "requested" },
	],
	[
		"bot fails without a reason",
		state("joining"),
		{ to: "failed", actor: "bot" },
		{ status: "failed", completion_reason: null, failure_stage: "joining" },
	],
	[
		"bot completes without a reason",
		state("active"),
		{ to: "completed", actor: "bot" },
		{ status: "completed", completion_reason: null, failure_stage: null },
	],
	// failure_stage is the furthest live stage reached.
	[
		"stuck after admission",
		state("needs_help", "active"),
		{ to: "failed", actor: "bot", completion_reason: "join_failure" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "active" },
	],
	[
		"bot knows it got further",
		state("joining"),
		{ to: "failed", actor: "bot", completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
		{ status: "failed", completion_reason: "awaiting_admission_rejected", failure_stage: "awaiting_admission" },
	],
	[
		"bot claims less than was seen",
		state("active"),
		{ to: "failed", actor: "bot", completion_reason: "evicted", failure_stage: "joining" },
		{ status: "failed", completion_reason: "evicted", failure_stage: "active" },
	],
	// Watchdog teardowns.
	[
		"bot never reported",
		state("requested"),
		{ to: "failed", actor: "system" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "requested" },
	],
	[
		"bot vanished while joining",
		state("joining"),
		{ to: "failed", actor: "system" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "joining" },
	],
	[
		"bot torn down in the lobby",
		state("awaiting_admission"),
		{ to: "failed", actor: "system" },
		{ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" },
	],
	[
		"stuck in the lobby, then torn down",
		state("needs_help", "awaiting_admission"),
		{ to: "failed", actor: "system" },
		{ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" },
	],
	[
		"bot vanished once admitted",
		state("active"),
		{ to: "failed", actor: "system" },
		{ status: "failed", completion_reason: null, failure_stage: "active" },
	],
	// The fleet took the bot away (failure_cause): a teardown whatever reason or status was named.
	[
		"no host claimed it",
		state("requested"),
		{ to: "failed", actor: "system", failure_cause: "no_bot_capacity" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "requested" },
	],
	[
		"host lost while joining",
		state("joining"),
		{ to: "failed", actor: "system", failure_cause: "bot_host_lost" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "joining" },
	],
	[
		"host lost in the lobby",
		state("awaiting_admission"),
		{ to: "failed", actor: "system", failure_cause: "bot_host_lost" },
		{ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" },
	],
	[
		"host lost once admitted",
		state("active"),
		{ to: "failed", actor: "system", failure_cause: "bot_host_lost" },
		{ status: "failed", completion_reason: null, failure_stage: "active" },
	],
	[
		"the bot's host shut down while it waited in the lobby",
		state("awaiting_admission"),
		{ to: "failed", actor: "bot", failure_cause: "host_drained", failure_stage: "awaiting_admission" },
		{ status: "failed", completion_reason: "awaiting_admission_timeout", failure_stage: "awaiting_admission" },
	],
	[
		"a cause outweighs a reason and a status named with it",
		state("joining"),
		{ to: "completed", actor: "bot", completion_reason: "stopped", failure_cause: "host_drained" },
		{ status: "failed", completion_reason: "join_failure", failure_stage: "joining" },
	],
	[
		"a user stop outweighs a cause",
		state("stopping", "active"),
		{ to: "failed", actor: "bot", failure_cause: "host_drained" },
		{ status: "completed", completion_reason: "stopped", failure_stage: null },
	],
	[
		"watchdog with an explicit reason",
		state("active"),
		{ to: "completed", actor: "system", completion_reason: "max_bot_time_exceeded" },
		{ status: "completed", completion_reason: "max_bot_time_exceeded", failure_stage: null },
	],
];

describe("how a meeting ends", () => {
	it.each(ENDINGS)("%s", (_name, from, request, expected) => {
		const result = transition(from, request);
		expect(result.ok).toBe(true);
		if (result.ok) {
			expect(result.changed).toBe(true);
			expect(result.from).toBe(from.status);
			const { reached_stage: _r, ...ending } = result.state;
			expect(ending).toEqual(expected);
		}
	});

	it("maps every completion reason of the bot channel to an outcome", () => {
		expect(Object.keys(REASON_OUTCOME).sort()).toEqual([...CompletionReason.options].sort());
		const failed = Object.entries(REASON_OUTCOME)
			.filter(([, s]) => s === "failed")
			.map(([r]) => r)
			.sort();
		expect(failed).toEqual(["awaiting_admission_rejected", "awaiting_admission_timeout", "evicted", "join_failure", "validation_error"]);
	});

	it("names only reasons of the reference's MeetingCompletionReason enum", () => {
		const reference = [
			"stopped",
			"validation_error",
			"awaiting_admission_timeout",
			"awaiting_admission_rejected",
			"left_alone",
			"evicted",
			"max_bot_time_exceeded",
			"stopped_before_admission",
			"stopped_with_no_audio",
			"join_failure",
			"auth_session_missing",
			"startup_alone",
		];
		for (const reason of CompletionReason.options) expect(reference).toContain(reason);
	});

	it("marks join failures and lobby timeouts retryable, as the spec's States table does, and nothing else", () => {
		expect([...RETRYABLE_REASONS].sort()).toEqual(["awaiting_admission_timeout", "join_failure"]);
	});
});

describe("the stage a meeting reached", () => {
	it("is carried through needs_help and stopping", () => {
		let s = initialState("requested");
		const steps: TransitionRequest[] = [
			{ to: "joining", actor: "bot" },
			{ to: "awaiting_admission", actor: "bot" },
			{ to: "needs_help", actor: "bot" },
			{ to: "active", actor: "bot" },
			{ to: "needs_help", actor: "bot" },
		];
		for (const step of steps) {
			const r = transition(s, step);
			if (!r.ok) throw new Error(r.detail);
			s = r.state;
		}
		expect(s).toEqual({ status: "needs_help", completion_reason: null, failure_stage: null, reached_stage: "active" });
		const failed = transition(s, { to: "failed", actor: "bot" });
		expect(failed).toMatchObject({ ok: true, state: { status: "failed", failure_stage: "active" } });
	});

	it("starts empty for a planned record and at requested for a bot request", () => {
		expect(initialState("idle").reached_stage).toBeNull();
		expect(initialState("requested").reached_stage).toBe("requested");
	});
});

describe("status phases", () => {
	it.each(MEETING_STATUSES)("%s belongs to exactly one phase", (s) => {
		const phases = [isPlanned(s), isLive(s), isTerminal(s)].filter(Boolean);
		expect(phases).toHaveLength(1);
	});

	it("classifies the phases of docs/status-machine.md", () => {
		expect(MEETING_STATUSES.filter(isPlanned)).toEqual(["idle", "scheduled"]);
		expect(MEETING_STATUSES.filter(isLive)).toEqual(["requested", "joining", "awaiting_admission", "needs_help", "active", "stopping"]);
		expect(MEETING_STATUSES.filter(isTerminal)).toEqual(["completed", "failed"]);
	});
});
