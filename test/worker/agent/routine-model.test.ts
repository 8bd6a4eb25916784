/**
 * Routines end to end inside the Worker: the user's agent object fires a routine from its own
 * alarm, the real runtime sends the routine's prompt to the scripted model server, and the run
 * is recorded as a workload; a completed meeting runs the user's meeting.completed routine.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentUser } from "../../../durable-objects/agent-user";
import { KEY_REVOKED } from "../../../durable-objects/agent-user/routines";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { eventually } from "../../shared/wait";
import { getMeeting, liveMeeting } from "../meetings/helpers";
import { ADMIN, call, json } from "../support";
import { agentUser, bodyOf, MODEL_NAME, script, sent } from "./helpers";

const agentOf = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));

interface Listed {
	id: string;
	name: string;
	enabled: boolean;
	status: string;
	last_run: string | null;
	last_ok: boolean | null;
	last_error: string | null;
	last_reply: string | null;
	last_workload_id: string | null;
	next_run: string | null;
}

async function listed(headers: Record<string, string>): Promise<Listed[]> {
	return (await json<{ routines: Listed[] }>(await call("GET", "/agent/api/routines", { headers }))).routines;
}

describe("a scheduled routine with the user's model", () => {
	it("sends its prompt to the model when due, once, and records the run as a scheduled rw workload", async () => {
		const { user, headers } = await agentUser();
		const marker = `routine-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["Your ", "brief."] }]);
		const res = await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "Brief", cron: "0 8 1 1 *", prompt: `Brief me. ${marker}` },
		});
		expect(res.status).toBe(201);
		const { routine } = await json<{ routine: Listed }>(res);
		// Before its first run a routine has no outcome and no reply.
		expect(routine).toMatchObject({ last_run: null, last_ok: null, last_reply: null });
		const agent = agentOf(user.id);
		const due = Date.now() - 1000;
		const moveBack = () =>
			runInDurableObject(agent, (_a: AgentUser, state) => {
				state.storage.sql.exec(
					`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`,
					due,
					`routine:${routine.id}`,
				);
			});
		await moveBack();
		await runDurableObjectAlarm(agent);

		const requests = await sent(marker);
		expect(requests).toHaveLength(1);
		const body = bodyOf(requests[0]);
		expect(body.model).toBe(MODEL_NAME);
		expect(body.messages.at(-1)).toMatchObject({ role: "user", content: expect.stringContaining(`Brief me. ${marker}`) });
		const [after] = await listed(headers);
		// The run's time, its outcome and what the agent replied: what the dashboard shows of it.
		expect(after).toMatchObject({ last_ok: true, last_error: null, last_reply: "Your brief.", last_workload_id: expect.any(String) });
		expect(Date.parse(after?.last_run ?? "")).toBeGreaterThan(due);
		expect(Date.parse(after?.next_run ?? "")).toBeGreaterThan(Date.now());
		const workload = await agent.workload(after?.last_workload_id ?? "");
		expect(workload).toMatchObject({
			trigger: "scheduled",
			mode: "rw",
			launcher: `schedule:${routine.id}`,
			runs: 1,
			last: { ok: true, reply: "Your brief." },
		});

		// The alarm again for the same due time: the model hears nothing more.
		await moveBack();
		await runDurableObjectAlarm(agent);
		expect(await sent(marker)).toHaveLength(1);
	});

	it("stops with the key that created it: once that key is revoked the routine is disabled, not run", async () => {
		const { user, headers } = await agentUser();
		const minted = await json<{ id: number; token: string }>(
			await call("POST", `/admin/users/${user.id}/tokens?scopes=bot,tx`, { headers: ADMIN }),
		);
		const leaked = { "X-API-Key": minted.token };
		const [revokedMarker, keptMarker] = [`routine-${crypto.randomUUID()}`, `routine-${crypto.randomUUID()}`];
		const create = async (key: Record<string, string>, name: string, marker: string) => {
			const res = await call("POST", "/agent/api/routines", { headers: key, json: { name, cron: "0 8 1 1 *", prompt: `Run. ${marker}` } });
			expect(res.status).toBe(201);
			return (await json<{ routine: Listed }>(res)).routine;
		};
		const fromLeaked = await create(leaked, "Set up with the leaked key", revokedMarker);
		const fromKept = await create(headers, "Set up with the kept key", keptMarker);
		expect((await call("DELETE", `/admin/tokens/${minted.id}`, { headers: ADMIN })).status).toBe(204);

		const agent = agentOf(user.id);
		await runInDurableObject(agent, (_a: AgentUser, state) => {
			for (const routine of [fromLeaked, fromKept])
				state.storage.sql.exec(
					`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`,
					Date.now() - 1000,
					`routine:${routine.id}`,
				);
		});
		await runDurableObjectAlarm(agent);

		expect(await sent(revokedMarker)).toHaveLength(0);
		expect(await sent(keptMarker)).toHaveLength(1);
		const after = await listed(headers);
		expect(after.find((r) => r.id === fromLeaked.id)).toMatchObject({
			enabled: false,
			status: "disabled",
			next_run: null,
			last_ok: false,
			last_error: KEY_REVOKED,
			last_reply: null,
		});
		expect(after.find((r) => r.id === fromKept.id)).toMatchObject({ enabled: true, last_error: null });
	});

	it("records a provider failure, retries it, and succeeds on the retry", async () => {
		const { user, headers } = await agentUser();
		const marker = `routine-${crypto.randomUUID()}`;
		await script(marker, [{ status: 503 }, { text: ["Recovered."] }]);
		const res = await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "Flaky", cron: "0 8 1 1 *", prompt: `Try. ${marker}` },
		});
		const { routine } = await json<{ routine: Listed }>(res);
		const agent = agentOf(user.id);
		const moveBack = (timer: string) =>
			runInDurableObject(agent, (_a: AgentUser, state) => {
				state.storage.sql.exec(`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`, Date.now() - 1000, timer);
			});
		await moveBack(`routine:${routine.id}`);
		await runDurableObjectAlarm(agent);
		const [failed] = await listed(headers);
		expect(failed).toMatchObject({ status: "retrying", last_ok: false, last_error: expect.stringMatching(/\S/), last_reply: null });
		expect(failed?.last_error).not.toContain("sk-live-provider-secret");
		await moveBack(`routine-retry:${routine.id}`);
		await runDurableObjectAlarm(agent);
		expect(await sent(marker)).toHaveLength(2);
		expect((await listed(headers))[0]).toMatchObject({ status: "scheduled", last_ok: true, last_error: null, last_reply: "Recovered." });
	});
});

describe("a meeting.completed routine with the user's model", () => {
	it("runs read-only with the completed meeting as its context", async () => {
		const { user, headers } = await agentUser();
		const marker = `after-meeting-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["Summary written."] }]);
		const res = await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "After meetings", event: "meeting.completed", prompt: `Summarize the meeting. ${marker}` },
		});
		expect(res.status).toBe(201);
		const live = await liveMeeting(headers);
		await live.bot.status("completed", { completion_reason: "left_alone" });
		expect((await getMeeting(headers, live.meeting.id)).status).toBe("completed");
		// The room tells the agent object, whose alarm runs the routine (due at once).
		const done = await eventually("the routine's first run", async () => {
			await runDurableObjectAlarm(agentOf(user.id));
			const routine = (await listed(headers))[0];
			return routine?.last_run != null ? routine : undefined;
		});
		expect(done).toMatchObject({ last_error: null, last_workload_id: expect.any(String) });
		const requests = await sent(marker);
		expect(requests).toHaveLength(1);
		const workload = await agentOf(user.id).workload(done?.last_workload_id ?? "");
		expect(workload).toMatchObject({
			trigger: "transcription",
			mode: "ro",
			launcher: "integration:meetings",
			context: { kind: "meeting", meeting: { meeting_id: String(live.meeting.id), session_uid: live.code, platform: "google_meet" } },
			last: { ok: true, reply: "Summary written." },
		});
		// A read-only workload is offered no tool that writes.
		const tools = (bodyOf(requests[0]).tools ?? []).map((t) => t.function.name);
		expect(tools).not.toContain("send_bot");
	});
});
