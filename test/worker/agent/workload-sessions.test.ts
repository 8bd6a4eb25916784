/**
 * The chat's session list holds the user's chats: the `wl-<workload id>` sessions that routine
 * and invocation runs leave behind are listed only on request (`?include=workloads`), and a
 * routine's record carries its last run's reply, bounded. Real runs against the scripted model server.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentUser } from "../../../durable-objects/agent-user";
import { LAST_REPLY_MAX } from "../../../durable-objects/agent-user/routine-records";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import { call, json } from "../support";
import { agentUser, chat, script } from "./helpers";
import { readAll } from "./sse";

interface SessionItem {
	session: string;
	title: string;
	workload_id: string | null;
}

interface RoutineRecord {
	id: string;
	last_run: string | null;
	last_ok: boolean | null;
	last_reply: string | null;
	last_workload_id: string | null;
}

const agentOf = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));

async function sessions(headers: Record<string, string>, query = ""): Promise<SessionItem[]> {
	const res = await call("GET", `/agent/api/sessions${query}`, { headers });
	expect(res.status).toBe(200);
	return (await json<{ sessions: SessionItem[] }>(res)).sessions;
}

/** Runs a scheduled routine now, from the user's agent object's own alarm, and returns its record after the run. */
async function runRoutine(userId: number, headers: Record<string, string>, prompt: string): Promise<RoutineRecord> {
	const res = await call("POST", "/agent/api/routines", { headers, json: { name: "Digest", cron: "0 8 1 1 *", prompt } });
	expect(res.status).toBe(201);
	const { routine } = await json<{ routine: RoutineRecord }>(res);
	await runInDurableObject(agentOf(userId), (_a: AgentUser, state) => {
		state.storage.sql.exec(
			`UPDATE ${AGENT_USER_STORAGE.tables.alarmTimers} SET due_ms = ? WHERE name = ?`,
			Date.now() - 1000,
			`routine:${routine.id}`,
		);
	});
	await runDurableObjectAlarm(agentOf(userId));
	const { routines } = await json<{ routines: RoutineRecord[] }>(await call("GET", "/agent/api/routines", { headers }));
	const ran = routines.find((r) => r.id === routine.id);
	expect(ran?.last_run).not.toBeNull();
	return ran as RoutineRecord;
}

describe("GET /agent/api/sessions", () => {
	it("lists the user's chats only, a chat named wl-… among them; ?include=workloads adds the runs' sessions", async () => {
		const { user, headers } = await agentUser();
		const marker = `wl-sessions-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["Digest ready."] }, { text: ["Hi."] }, { text: ["Noted."] }]);
		const routine = await runRoutine(user.id, headers, `Write the digest. ${marker}`);
		expect(routine).toMatchObject({ last_ok: true, last_reply: "Digest ready." });
		await readAll(await chat(headers, { prompt: `Hello ${marker}`, session: "main" }));
		// A chat the user named wl-… is theirs: only a session a workload ran in is left out.
		await readAll(await chat(headers, { prompt: `Remember this ${marker}`, session: "wl-notes" }));

		const chats = await sessions(headers);
		expect(chats.map((s) => s.session)).toEqual(["wl-notes", "main"]);
		expect(chats.every((s) => s.workload_id === null)).toBe(true);

		const all = await sessions(headers, "?include=workloads");
		const run = all.find((s) => s.workload_id !== null);
		expect(run).toMatchObject({ session: `wl-${routine.last_workload_id}`, workload_id: routine.last_workload_id });
		expect(all.map((s) => s.session).sort()).toEqual(["main", "wl-notes", `wl-${routine.last_workload_id}`].sort());
		// The run's whole conversation stays readable by its name.
		const history = await json<{ turns: { role: string; text: string }[] }>(
			await call("GET", `/agent/api/sessions/${encodeURIComponent(run?.session ?? "")}/history`, { headers }),
		);
		expect(history.turns.at(-1)).toMatchObject({ role: "agent", text: "Digest ready." });
	});

	it("refuses an include it does not know with a field error, and the short and legacy paths agree", async () => {
		const { headers } = await agentUser();
		const res = await call("GET", "/agent/api/sessions?include=everything", { headers });
		expect(res.status).toBe(422);
		const { detail } = await json<{ detail: { loc: string[] }[] }>(res);
		expect(detail[0]?.loc).toEqual(["query", "include"]);
		for (const path of ["/agent/sessions", "/api/sessions"]) {
			expect(await json(await call("GET", path, { headers }))).toEqual({ sessions: [] });
			expect(await json(await call("GET", `${path}?include=workloads`, { headers }))).toEqual({ sessions: [] });
		}
	});
});

describe("a routine's last reply", () => {
	it("is kept as plain text, cut to its bound; the whole reply stays in the run's session", async () => {
		const { user, headers } = await agentUser();
		const marker = `long-reply-${crypto.randomUUID()}`;
		const long = `<b>${"word ".repeat(1200)}</b>`;
		await script(marker, [{ text: [long] }]);
		const routine = await runRoutine(user.id, headers, `Write a lot. ${marker}`);
		expect(routine.last_ok).toBe(true);
		expect(routine.last_reply).toHaveLength(LAST_REPLY_MAX);
		expect(routine.last_reply?.startsWith("<b>word word")).toBe(true);
		expect(routine.last_reply?.endsWith("…")).toBe(true);
		const history = await json<{ turns: { role: string; text: string }[] }>(
			await call("GET", `/agent/api/sessions/wl-${routine.last_workload_id}/history`, { headers }),
		);
		expect(history.turns.at(-1)?.text).toBe(long.trim());
	});
});
