/**
 * When routines run (durable-objects/agent-user/routines.ts): the Routines class on a real AgentUser
 * object's SQLite storage and alarm timers, with a runner that records each invocation and
 * answers the outcome the test scripts (the runtime's own tests cover real runs), and a clock
 * the test moves (no sleeps). The alarm step below is AgentUser.alarm's loop.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentCaller, AgentUser } from "../../../durable-objects/agent-user";
import { RETRY_BACKOFF_MS, type RoutineAuthority, type RoutineRunner, Routines } from "../../../durable-objects/agent-user/routines";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { type AgentTimers, agentTimers } from "../../../durable-objects/agent-user/timers";
import type { Invocation, WorkloadOutcome } from "../../../src/agent/envelopes";

const at = (iso: string) => Date.parse(iso);
let nextUser = 900_000;

interface Harness {
	routines: Routines;
	timers: AgentTimers;
	calls: { caller: AgentCaller; invocation: Invocation }[];
	/** Outcomes the runner answers in order; a success when none is left. */
	outcomes: WorkloadOutcome[];
	clock: { now: number };
	caller: AgentCaller;
	/** The alarm at the clock's time: every routine timer due runs, then settles. */
	alarm(): Promise<void>;
	/** A timer row moved back to a due time, as if the alarm fired for it again. */
	rewind(timer: string, dueMs: number): void;
	storage: DurableObjectStorage;
}

/** The creating key as it stands: still valid, unchanged (the key check itself is tested in routines.test.ts). */
const keyStillValid: RoutineAuthority = async (creator) => creator;

/** Runs `body` inside a fresh user's agent object, with times in 2030 so the real alarm never fires during the test. */
function withRoutines(body: (h: Harness) => Promise<void>): Promise<void> {
	nextUser += 1;
	const userId = nextUser;
	const stub = env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));
	return runInDurableObject(stub, async (_agent: AgentUser, state) => {
		const calls: Harness["calls"] = [];
		const outcomes: WorkloadOutcome[] = [];
		const clock = { now: at("2030-01-01T07:00:00Z") };
		const run: RoutineRunner = async (caller, invocation) => {
			calls.push({ caller, invocation });
			return outcomes.shift() ?? { workload_id: `wl_${calls.length}`, ok: true, retryable: false };
		};
		const timers = agentTimers(state.storage);
		const routines = new Routines(state.storage, timers, run, keyStillValid, () => clock.now);
		await body({
			routines,
			timers,
			calls,
			outcomes,
			clock,
			caller: { userId, scopes: ["bot"], tokenId: 1 },
			storage: state.storage,
			alarm: () => runDueTimers(routines, timers, clock.now),
			rewind(timer, dueMs) {
				state.storage.sql.exec(
					`INSERT INTO ${AGENT_USER_STORAGE.tables.alarmTimers} (name, due_ms) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET due_ms = excluded.due_ms`,
					timer,
					dueMs,
				);
			},
		});
	});
}

/** AgentUser.alarm's step at `nowMs` for routine timers: each due one runs, then goes (settled by the shared timers). */
function runDueTimers(routines: Routines, timers: AgentTimers, nowMs: number): Promise<void> {
	return timers.fire({ "turn-heartbeat": async () => undefined, ...routines.timerHandlers }, nowMs);
}

const failure = (retryable: boolean, detail: string): WorkloadOutcome => ({ workload_id: "wl_failed", ok: false, retryable, detail });

describe("scheduled routines", () => {
	it("run once per due time as a scheduled rw invocation with the creator's scopes, even when the alarm fires twice", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, {
				name: "Morning brief",
				cron: "0 8 * * *",
				prompt: "Brief me.",
				runNow: false,
			});
			expect(routine.next_run).toBe("2030-01-01T08:00:00.000Z");
			h.clock.now = at("2030-01-01T08:00:02Z");
			await h.alarm();
			expect(h.calls).toEqual([
				{
					caller: h.caller,
					invocation: {
						identity: { subject: String(h.caller.userId), launcher: `schedule:${routine.id}` },
						runner: "edge",
						workspaces: [{ id: String(h.caller.userId), mode: "rw" }],
						trigger: "scheduled",
						context: { kind: "none" },
						start: { entrypoint: { inline: "Brief me." } },
					},
				},
			]);
			// The same due time again (an alarm retried by the platform): nothing runs.
			h.rewind(`routine:${routine.id}`, at("2030-01-01T08:00:00Z"));
			await h.alarm();
			expect(h.calls).toHaveLength(1);
			const [listed] = await h.routines.list();
			expect(listed).toMatchObject({ next_run: "2030-01-02T08:00:00.000Z", last_run: "2030-01-01T08:00:02.000Z", last_error: null });
			h.clock.now = at("2030-01-02T08:00:00Z");
			await h.alarm();
			expect(h.calls).toHaveLength(2);
		}));

	it("take the next run from the later of now and the due time: a late alarm runs once and skips the missed slots", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Hourly", cron: "0 * * * *", prompt: "Tick.", runNow: false });
			h.clock.now = at("2030-01-01T11:30:00Z");
			await h.alarm();
			expect(h.calls).toHaveLength(1);
			expect(await h.timers.due(`routine:${routine.id}`)).toBe(at("2030-01-01T12:00:00Z"));
		}));

	it("do not run before their due time", () =>
		withRoutines(async (h) => {
			await h.routines.create(h.caller, { name: "Later", cron: "0 8 * * *", prompt: "Not yet.", runNow: false });
			h.clock.now = at("2030-01-01T07:59:59Z");
			await h.alarm();
			expect(h.calls).toEqual([]);
		}));

	it("run_now is a run due now that keeps the schedule's next slot", () =>
		withRoutines(async (h) => {
			const created = await h.routines.create(h.caller, { name: "Now", cron: "0 8 * * *", prompt: "Go.", runNow: true });
			expect(created.ran_now).toBe(true);
			expect(created.routine.next_run).toBe("2030-01-01T07:00:00.000Z");
			expect(h.calls).toEqual([]);
			await h.alarm();
			expect(h.calls).toHaveLength(1);
			expect((await h.routines.list())[0]?.next_run).toBe("2030-01-01T08:00:00.000Z");
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			expect(h.calls).toHaveLength(2);
		}));

	it("posting the same name replaces cron and prompt, keeps the id", () =>
		withRoutines(async (h) => {
			const first = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "One.", runNow: false });
			const second = await h.routines.create(h.caller, { name: "Brief", cron: "30 9 * * *", prompt: "Two.", runNow: false });
			expect(second.routine.id).toBe(first.routine.id);
			expect(await h.routines.list()).toEqual([expect.objectContaining({ cron: "30 9 * * *", next_run: "2030-01-01T09:30:00.000Z" })]);
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			expect(h.calls).toEqual([]);
			h.clock.now = at("2030-01-01T09:30:00Z");
			await h.alarm();
			expect(h.calls.map((c) => c.invocation.start)).toEqual([{ entrypoint: { inline: "Two." } }]);
		}));

	it("disabled do not run, even when their timer fires; enabled again they do", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			const reconcile = await h.routines.setEnabled(h.caller.userId, "Brief", false);
			expect(reconcile).toEqual({ subject: String(h.caller.userId), scanned: 1, scheduled: 0, kept: 0, cancelled: 1, skipped: 0 });
			expect(await h.timers.due(`routine:${routine.id}`)).toBeUndefined();
			expect((await h.routines.list())[0]).toMatchObject({ enabled: false, status: "disabled", next_run: null });
			h.rewind(`routine:${routine.id}`, at("2030-01-01T08:00:00Z"));
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			expect(h.calls).toEqual([]);
			expect(await h.routines.setEnabled(h.caller.userId, "Brief", true)).toMatchObject({ scanned: 1, scheduled: 1 });
			expect((await h.routines.list())[0]).toMatchObject({ enabled: true, status: "scheduled", next_run: "2030-01-02T08:00:00.000Z" });
			expect(await h.routines.setEnabled(h.caller.userId, "Unknown", true)).toBeNull();
		}));

	it("deleted never come back: their timers go, a fired leftover does nothing, the name starts afresh", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			expect(await h.routines.remove(routine.id)).toBe(true);
			expect(await h.routines.remove(routine.id)).toBe(false);
			expect(await h.timers.dueAt(Number.MAX_SAFE_INTEGER)).toEqual([]);
			h.rewind(`routine:${routine.id}`, at("2030-01-01T08:00:00Z"));
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			expect(h.calls).toEqual([]);
			expect(await h.routines.list()).toEqual([]);
			const again = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			expect(again.routine.id).not.toBe(routine.id);
		}));

	it("deleted while running stays deleted: no next slot, no retry", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			const deleting = new Routines(
				h.storage,
				h.timers,
				async () => {
					await h.routines.remove(routine.id);
					return failure(true, "The model provider is unavailable (503)");
				},
				keyStillValid,
				() => h.clock.now,
			);
			h.clock.now = at("2030-01-01T08:00:00Z");
			await runDueTimers(deleting, h.timers, h.clock.now);
			expect(await h.timers.dueAt(Number.MAX_SAFE_INTEGER)).toEqual([]);
			expect(await h.routines.list()).toEqual([]);
		}));
});

describe("failing routines", () => {
	it("retry a retryable failure after 30 s, 120 s and 300 s, then give up that slot and keep the schedule", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			for (let i = 0; i < 4; i++) h.outcomes.push(failure(true, `The model provider is unavailable (503), try ${i + 1}`));
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			expect((await h.routines.list())[0]).toMatchObject({
				status: "retrying",
				last_error: "The model provider is unavailable (503), try 1",
				next_run: "2030-01-02T08:00:00.000Z",
			});
			for (const [i, wait] of RETRY_BACKOFF_MS.entries()) {
				expect(await h.timers.due(`routine-retry:${routine.id}`)).toBe(h.clock.now + wait);
				// A moment early: the retry waits.
				h.clock.now += wait - 1;
				await h.alarm();
				expect(h.calls).toHaveLength(i + 1);
				h.clock.now += 1;
				await h.alarm();
				expect(h.calls).toHaveLength(i + 2);
			}
			expect(await h.timers.due(`routine-retry:${routine.id}`)).toBeUndefined();
			expect((await h.routines.list())[0]).toMatchObject({
				status: "scheduled",
				last_error: "The model provider is unavailable (503), try 4",
				next_run: "2030-01-02T08:00:00.000Z",
			});
			// The next day's slot runs as usual, and a success clears the error.
			h.clock.now = at("2030-01-02T08:00:00Z");
			await h.alarm();
			expect(h.calls).toHaveLength(5);
			expect((await h.routines.list())[0]).toMatchObject({ last_error: null, last_run: "2030-01-02T08:00:00.000Z" });
		}));

	it("run a retry once when its timer fires twice for the same due time", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			h.outcomes.push(failure(true, "The model provider is unavailable (503)"));
			h.clock.now = at("2030-01-01T08:00:00Z");
			await h.alarm();
			const retryDue = (await h.timers.due(`routine-retry:${routine.id}`)) ?? 0;
			h.clock.now = retryDue;
			await h.alarm();
			expect(h.calls).toHaveLength(2);
			h.rewind(`routine-retry:${routine.id}`, retryDue);
			await h.alarm();
			expect(h.calls).toHaveLength(2);
			expect((await h.routines.list())[0]).toMatchObject({ status: "scheduled", last_error: null });
		}));

	it("record a failure that is not worth retrying and fire again at the next cron time", () =>
		withRoutines(async (h) => {
			const { routine } = await h.routines.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			h.outcomes.push(
				failure(false, "The model provider refused the key (401)"),
				failure(false, "The model provider refused the key (401)"),
			);
			for (const day of ["2030-01-01", "2030-01-02"]) {
				h.clock.now = at(`${day}T08:00:00Z`);
				await h.alarm();
				expect(await h.timers.due(`routine-retry:${routine.id}`)).toBeUndefined();
				expect((await h.routines.list())[0]).toMatchObject({ status: "scheduled", last_error: "The model provider refused the key (401)" });
			}
			expect(h.calls).toHaveLength(2);
		}));

	it("treat a runner that throws as a retryable failure, without its message", () =>
		withRoutines(async (h) => {
			const throwing = new Routines(
				h.storage,
				h.timers,
				async () => {
					throw new Error("upstream said: sk-live-secret");
				},
				keyStillValid,
				() => h.clock.now,
			);
			const { routine } = await throwing.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: false });
			h.clock.now = at("2030-01-01T08:00:00Z");
			await runDueTimers(throwing, h.timers, h.clock.now);
			const [listed] = await throwing.list();
			expect(listed?.last_error).toBe("The run could not complete; it is retried");
			expect(await h.timers.due(`routine-retry:${routine.id}`)).toBe(h.clock.now + 30_000);
		}));
});

describe("event routines", () => {
	const meeting = { meeting_id: "41", session_uid: "abc-defg-hij", platform: "google_meet" };

	it("run on meeting.completed as a read-only transcription invocation with the meeting as context, once per meeting", () =>
		withRoutines(async (h) => {
			const { routine, job_id } = await h.routines.create(h.caller, {
				name: "Summary",
				event: "meeting.completed",
				prompt: "Summarize it.",
				runNow: false,
			});
			expect(routine).toMatchObject({ kind: "event", event: "meeting.completed", cron: null, next_run: null, status: "listening" });
			expect(job_id).toBeNull();
			await h.routines.create(h.caller, { name: "Scheduled", cron: "0 8 * * *", prompt: "Not on events.", runNow: false });
			expect(await h.routines.meetingEvent({ name: "meeting.completed", meeting })).toEqual({ queued: 1 });
			expect(h.calls).toEqual([]);
			await h.alarm();
			expect(h.calls).toEqual([
				{
					caller: h.caller,
					invocation: {
						identity: { subject: String(h.caller.userId), launcher: "integration:meetings" },
						runner: "edge",
						workspaces: [{ id: String(h.caller.userId), mode: "ro" }],
						trigger: "transcription",
						context: { kind: "meeting", meeting },
						start: { entrypoint: { inline: "Summarize it." } },
					},
				},
			]);
			// Its timer firing again runs nothing more.
			const [runTimer] = h.storage.sql.exec<{ id: string }>(`SELECT id FROM ${AGENT_USER_STORAGE.tables.routineEventRuns}`).toArray();
			h.rewind(`routine-event:${runTimer?.id}`, h.clock.now);
			await h.alarm();
			expect(h.calls).toHaveLength(1);
			// The same meeting's completion told twice runs nothing more; another meeting runs again.
			expect(await h.routines.meetingEvent({ name: "meeting.completed", meeting })).toEqual({ queued: 0 });
			await h.alarm();
			expect(h.calls).toHaveLength(1);
			await h.routines.meetingEvent({ name: "meeting.completed", meeting: { ...meeting, meeting_id: "42" } });
			await h.alarm();
			expect(h.calls).toHaveLength(2);
			expect((await h.routines.list()).find((r) => r.name === "Summary")?.last_run).toBe("2030-01-01T07:00:00.000Z");
		}));

	it("start once when the alarm comes again while the run is under way", () =>
		withRoutines(async (h) => {
			let runs = 0;
			const reentrant: Routines = new Routines(
				h.storage,
				h.timers,
				async () => {
					runs += 1;
					// The same due timers, seen by an alarm arriving mid-run.
					if (runs === 1)
						for (const timer of await h.timers.dueAt(h.clock.now))
							if (timer.kind !== "turn-heartbeat") await reentrant.timerHandlers[timer.kind](timer);
					return { workload_id: "wl_1", ok: true, retryable: false };
				},
				keyStillValid,
				() => h.clock.now,
			);
			await reentrant.create(h.caller, { name: "Summary", event: "meeting.completed", prompt: "Summarize it.", runNow: false });
			await reentrant.create(h.caller, { name: "Brief", cron: "0 8 * * *", prompt: "Go.", runNow: true });
			await reentrant.meetingEvent({ name: "meeting.completed", meeting });
			await runDueTimers(reentrant, h.timers, h.clock.now);
			expect(runs).toBe(2);
		}));

	it("retry a retryable failure of an event run, and skip disabled routines", () =>
		withRoutines(async (h) => {
			await h.routines.create(h.caller, { name: "Summary", event: "meeting.completed", prompt: "Summarize it.", runNow: false });
			await h.routines.create(h.caller, { name: "Off", event: "meeting.completed", prompt: "Never.", runNow: false });
			await h.routines.setEnabled(h.caller.userId, "Off", false);
			h.outcomes.push(failure(true, "The model provider is rate limiting (429)"));
			expect(await h.routines.meetingEvent({ name: "meeting.completed", meeting })).toEqual({ queued: 1 });
			await h.alarm();
			expect((await h.routines.list()).find((r) => r.name === "Summary")?.last_error).toBe("The model provider is rate limiting (429)");
			h.clock.now += 30_000;
			await h.alarm();
			expect(h.calls.map((c) => c.invocation.start)).toEqual([
				{ entrypoint: { inline: "Summarize it." } },
				{ entrypoint: { inline: "Summarize it." } },
			]);
			expect((await h.routines.list()).find((r) => r.name === "Summary")?.last_error).toBeNull();
			expect(await h.timers.dueAt(Number.MAX_SAFE_INTEGER)).toEqual([]);
		}));
});
