/**
 * The routine routes (docs/agent.md#routines) through the Worker, and a routine firing from the
 * user's agent object's own alarm (timer rows moved back, then runDurableObjectAlarm).
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { AgentUser } from "../../../durable-objects/agent-user";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { agentTimers } from "../../../durable-objects/agent-user/timers";
import { RoutineCreated, RoutineDeleted, RoutineEnabled, RoutineList } from "../../../src/routes/agent-routines";
import { getMeeting, liveMeeting } from "../meetings/helpers";
import { call, expectDocumented, json, userWithKey } from "../support";

const agentOf = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));

async function routines(headers: Record<string, string>, prefix = "/agent/api") {
	return (await expectDocumented(RoutineList, await call("GET", `${prefix}/routines`, { headers }))).routines;
}

describe("POST /agent/api/routines", () => {
	it("creates a scheduled routine for the key's user (a body subject is ignored), listed on both prefixes", async () => {
		const { user, headers } = await userWithKey();
		const other = await userWithKey();
		const before = Date.now();
		const created = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", {
				headers,
				json: {
					name: "Morning brief",
					cron: "0 8 * * 1-5",
					prompt: "Brief me on today's meetings.",
					run_now: false,
					subject: String(other.user.id),
				},
			}),
			201,
		);
		expect(created.ran_now).toBe(false);
		expect(created.routine).toMatchObject({
			name: "Morning brief",
			kind: "scheduled",
			cron: "0 8 * * 1-5",
			event: null,
			lifecycle: "oneshot",
			plan_summary: "Brief me on today's meetings.",
			status: "scheduled",
			enabled: true,
			last_run: null,
			last_error: null,
		});
		expect(created.routine.id).toMatch(/^rt_[0-9a-f]{12}$/);
		expect(created.job_id).toBe(`routine:${created.routine.id}`);
		const next = Date.parse(created.routine.next_run ?? "");
		expect(next).toBeGreaterThan(before);
		expect(new Date(next).getUTCHours()).toBe(8);
		expect([1, 2, 3, 4, 5]).toContain(new Date(next).getUTCDay());
		expect(await routines(headers, "/agent")).toEqual([created.routine]);
		expect(await routines(other.headers)).toEqual([]);
		expect(user.id).not.toBe(other.user.id);
	});

	it.each([
		["0 24 * * *", "hour must be 0-23, got 24"],
		["0 8 * * * *", "cron needs 5 fields (minute hour day-of-month month day-of-week), got 6"],
		["0 8 32 * *", "day of month must be 1-31, got 32"],
		["0 8 * * 1#2", 'day of week does not support "#" (in "1#2")'],
		["@daily", "nicknames such as @daily are not supported; write the 5 fields"],
	])("refuses cron %j with a 422 naming the field, creating nothing", async (cron, msg) => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/agent/api/routines", { headers, json: { name: "Bad", cron, prompt: "Never." } });
		expect(res.status).toBe(422);
		expect(await json(res)).toEqual({ detail: [{ loc: ["body", "cron"], msg, type: "value_error" }] });
		expect(await routines(headers)).toEqual([]);
	});

	it.each([
		[{ name: "Both", cron: "0 8 * * *", event: "meeting.completed", prompt: "x" }, ["body", "cron"]],
		[{ name: "Neither", prompt: "x" }, ["body", "cron"]],
		[{ name: "", cron: "0 8 * * *", prompt: "x" }, ["body", "name"]],
		[{ name: "x".repeat(101), cron: "0 8 * * *", prompt: "x" }, ["body", "name"]],
		[{ name: "No prompt", cron: "0 8 * * *", prompt: " " }, ["body", "prompt"]],
		[{ name: "Long", cron: "0 8 * * *", prompt: "x".repeat(8001) }, ["body", "prompt"]],
		[{ name: "Unknown event", event: "email.received", prompt: "x" }, ["body", "event"]],
		[{ name: "Event now", event: "meeting.completed", prompt: "x", run_now: true }, ["body", "run_now"]],
	])("refuses %j at %j", async (body, loc) => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/agent/api/routines", { headers, json: body });
		expect(res.status).toBe(422);
		expect((await json<{ detail: { loc: string[] }[] }>(res)).detail[0]?.loc).toEqual(loc);
		expect(await routines(headers)).toEqual([]);
	});

	it("replaces cron and prompt of a routine posted again under its name, keeping its id", async () => {
		const { headers } = await userWithKey();
		const first = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/routines", { headers, json: { name: "Brief", cron: "0 8 * * *", prompt: "One." } }),
			201,
		);
		const second = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", { headers, json: { name: "Brief", cron: "15 9 * * *", prompt: "Two." } }),
			201,
		);
		expect(second.routine.id).toBe(first.routine.id);
		expect(await routines(headers)).toEqual([expect.objectContaining({ id: first.routine.id, cron: "15 9 * * *", plan_summary: "Two." })]);
	});

	it.each([
		["run_now true", { run_now: true }],
		// The reference's default (core/agent/control_plane/api.py `RoutineCreate.run_now = True`).
		["no run_now", {}],
	])("%s answers at once with a run due now", async (_, runNow) => {
		const { headers } = await userWithKey();
		const before = Date.now();
		const created = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", { headers, json: { name: "Now", cron: "0 8 1 1 *", prompt: "Go.", ...runNow } }),
			201,
		);
		expect(created.ran_now).toBe(true);
		expect(Date.parse(created.routine.next_run ?? "")).toBeGreaterThanOrEqual(before - 1000);
		expect(Date.parse(created.routine.next_run ?? "")).toBeLessThanOrEqual(Date.now() + 1000);
	});

	it("run_now false waits for the schedule", async () => {
		const { headers } = await userWithKey();
		const created = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", { headers, json: { name: "Later", cron: "0 8 1 1 *", prompt: "Go.", run_now: false } }),
			201,
		);
		expect(created.ran_now).toBe(false);
		const next = new Date(created.routine.next_run ?? "");
		expect([next.getUTCMonth(), next.getUTCDate(), next.getUTCHours()]).toEqual([0, 1, 8]);
	});

	it("creates an event routine on meeting.completed", async () => {
		const { headers } = await userWithKey();
		const created = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", {
				headers,
				json: { name: "After meetings", event: "meeting.completed", prompt: "Summarize it." },
			}),
			201,
		);
		expect(created).toMatchObject({
			job_id: null,
			ran_now: false,
			routine: { kind: "event", event: "meeting.completed", status: "listening", next_run: null },
		});
	});
});

describe("PATCH /agent/api/routines/{name}/enabled and DELETE /agent/api/routines/{routine_id}", () => {
	it("disables and enables by name, with the reconcile counts", async () => {
		const { user, headers } = await userWithKey();
		await call("POST", "/agent/api/routines", { headers, json: { name: "Brief", cron: "0 8 * * *", prompt: "Go." } });
		await call("POST", "/agent/api/routines", { headers, json: { name: "After", event: "meeting.completed", prompt: "Sum." } });
		const off = await expectDocumented(
			RoutineEnabled,
			await call("PATCH", "/agent/api/routines/Brief/enabled", { headers, json: { enabled: false } }),
		);
		expect(off).toEqual({
			ok: true,
			name: "Brief",
			enabled: false,
			reconcile: { subject: String(user.id), scanned: 2, scheduled: 0, kept: 0, cancelled: 1, skipped: 1 },
		});
		expect((await routines(headers)).find((r) => r.name === "Brief")).toMatchObject({ enabled: false, status: "disabled", next_run: null });
		const on = await expectDocumented(
			RoutineEnabled,
			await call("PATCH", "/agent/routines/Brief/enabled", { headers, json: { enabled: true } }),
		);
		expect(on.reconcile).toMatchObject({ scanned: 2, scheduled: 1, cancelled: 0 });
		expect((await routines(headers)).find((r) => r.name === "Brief")).toMatchObject({ enabled: true, status: "scheduled" });
		const spaced = await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "Week ahead", cron: "0 7 * * mon", prompt: "Plan." },
		});
		expect(spaced.status).toBe(201);
		expect((await call("PATCH", "/agent/api/routines/Week%20ahead/enabled", { headers, json: { enabled: false } })).status).toBe(200);
	});

	it("404s an unknown name and 422s a body without a boolean", async () => {
		const { headers } = await userWithKey();
		const res = await call("PATCH", "/agent/api/routines/Nope/enabled", { headers, json: { enabled: true } });
		expect(res.status).toBe(404);
		expect(await json(res)).toEqual({ detail: "Routine not found" });
		await call("POST", "/agent/api/routines", { headers, json: { name: "Brief", cron: "0 8 * * *", prompt: "Go." } });
		expect((await call("PATCH", "/agent/api/routines/Brief/enabled", { headers, json: { enabled: "no" } })).status).toBe(422);
		expect((await routines(headers))[0]?.enabled).toBe(true);
	});

	it("deletes by id once (then 404), only the caller's own, and the routine stays gone", async () => {
		const { user, headers } = await userWithKey();
		const other = await userWithKey();
		const { routine } = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", { headers, json: { name: "Brief", cron: "*/5 * * * *", prompt: "Go." } }),
			201,
		);
		expect((await call("DELETE", `/agent/api/routines/${routine.id}`, { headers: other.headers })).status).toBe(404);
		expect(await expectDocumented(RoutineDeleted, await call("DELETE", `/agent/routines/${routine.id}`, { headers }))).toEqual({
			ok: true,
			routine_id: routine.id,
		});
		const again = await call("DELETE", `/agent/api/routines/${routine.id}`, { headers });
		expect(again.status).toBe(404);
		expect(await json(again)).toEqual({ detail: "Routine not found" });
		await runDurableObjectAlarm(agentOf(user.id));
		expect(await routines(headers)).toEqual([]);
		const timers = await runInDurableObject(agentOf(user.id), (_agent: AgentUser, state) =>
			agentTimers(state.storage).dueAt(Number.MAX_SAFE_INTEGER),
		);
		expect(timers).toEqual([]);
	});

	it("need a key with bot or tx scope", async () => {
		expect((await call("GET", "/agent/api/routines")).status).toBe(401);
		const { headers } = await userWithKey("tx");
		expect((await call("GET", "/agent/api/routines", { headers })).status).toBe(200);
	});
});

describe("a routine fired by the agent object's alarm", () => {
	it("runs its due time once through the object's runtime, records the outcome and keeps its schedule", async () => {
		const { user, headers } = await userWithKey();
		const { routine } = await expectDocumented(
			RoutineCreated,
			await call("POST", "/agent/api/routines", { headers, json: { name: "Brief", cron: "0 8 * * *", prompt: "Go." } }),
			201,
		);
		const agent = agentOf(user.id);
		const due = Date.now() - 60_000;
		await runInDurableObject(agent, (_a: AgentUser, state) => {
			state.storage.sql.exec(`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`, due, `routine:${routine.id}`);
		});
		await runDurableObjectAlarm(agent);
		const [fired] = await routines(headers);
		expect(fired?.last_run).not.toBeNull();
		const firstRun = fired?.last_run;
		expect(Date.parse(fired?.next_run ?? "")).toBeGreaterThan(Date.now());
		// The alarm again for the same due time: no second run.
		await runInDurableObject(agent, (_a: AgentUser, state) => {
			state.storage.sql.exec(`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`, due, `routine:${routine.id}`);
		});
		await runDurableObjectAlarm(agent);
		const [after] = await routines(headers);
		expect(after?.last_run).toBe(firstRun);
		expect(Date.parse(after?.next_run ?? "")).toBeGreaterThan(Date.now());
	});
});

describe("an event routine on meeting.completed", () => {
	it("gets a run when the user's meeting completes (a failed one does not count), with the meeting as its context", async () => {
		const { user, headers } = await userWithKey();
		await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "After meetings", event: "meeting.completed", prompt: "Summarize it." },
		});
		const live = await liveMeeting(headers);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		expect((await getMeeting(headers, live.meeting.id)).status).toBe("completed");
		const agent = agentOf(user.id);
		const queued = () =>
			runInDurableObject(agent, (_a: AgentUser, state) =>
				state.storage.sql
					.exec<{ meeting: string }>(`SELECT meeting FROM ${AGENT_USER_STORAGE.tables.routineEventRuns}`)
					.toArray()
					.map((r) => JSON.parse(r.meeting)),
			);
		// The room tells the agent after the status write, without the write waiting for it.
		await vi.waitFor(async () => expect(await queued()).toHaveLength(1));
		expect(await queued()).toEqual([
			{ name: "meeting.completed", meeting: { meeting_id: String(live.meeting.id), session_uid: live.code, platform: "google_meet" } },
		]);
		await runDurableObjectAlarm(agent);
		await vi.waitFor(async () => expect((await routines(headers))[0]?.last_run).not.toBeNull());

		const failing = await liveMeeting(headers);
		await failing.bot.status("failed", { completion_reason: "evicted", failure_stage: "active" });
		expect((await getMeeting(headers, failing.meeting.id)).status).toBe("failed");
		const done = await liveMeeting(headers);
		await done.bot.status("completed", { completion_reason: "left_alone" });
		await vi.waitFor(async () => expect(await queued()).toHaveLength(2));
		expect((await queued()).map((e) => e.meeting.meeting_id)).not.toContain(String(failing.meeting.id));
	});
});
