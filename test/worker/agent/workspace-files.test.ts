/**
 * The agent on the user's git workspace (docs/workspace.md#the-agents-file-tools): file tools
 * staged per turn, one commit per `rw` turn by the user, governance refusals, read-only
 * workloads, which workspaces a unit may name, and plan files.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AGENT_USER_STORAGE } from "../../../durable-objects/agent-user/storage";
import type { Invocation } from "../../../src/agent/envelopes";
import type { AgentFrame } from "../../../src/agent/frames";
import { workspaceObject } from "../../../src/objects";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { call, joinWorkspace, json, userWithKey } from "../support";
import { agentUser, bodyOf, chat, endedWorkload, script, sent } from "./helpers";
import { readAll } from "./sse";

const agentStub = (userId: number) => env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));
const home = (userId: number) => workspaceObject(env, homeWorkspace(userId));
const framesOf = async (res: Response): Promise<AgentFrame[]> => (await readAll(res)).map((e) => e.frame);
const write = (id: string, path: string, content: string) => ({ id, name: "write_file", arguments: { path, content } });

describe("agent file tools in a chat turn", () => {
	it("stages a write, reads it back in the same turn, and commits it once at the end as the user", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		const content = `# Todo\n\n- call Acme about ${marker}\n`;
		await script(marker, [
			{ tool_calls: [write("call_write", "notes/todo.md", content)] },
			{ tool_calls: [{ id: "call_read", name: "read_file", arguments: { path: "./notes/todo.md" } }] },
			{ text: ["Added the Acme call to your todo list.\n", "Anything else?"] },
		]);
		const frames = await framesOf(await chat(headers, { prompt: `Note the Acme call ${marker}` }));
		expect(frames.map((f) => f.type)).toEqual([
			"turn-accepted",
			"tool-call",
			"tool-result",
			"tool-call",
			"tool-result",
			"message-delta",
			"message-delta",
			"commit",
			"done",
			"turn-complete",
		]);
		expect(frames[2]).toMatchObject({ type: "tool-result", callId: "call_write", ok: true });
		expect(frames[4]).toMatchObject({ type: "tool-result", callId: "call_read", ok: true });
		// The read saw the staged write before anything was committed.
		const readResult = bodyOf((await sent(marker))[2]).messages.at(-1);
		expect(readResult).toMatchObject({ role: "tool", tool_call_id: "call_read" });
		expect(JSON.parse(readResult?.content ?? "{}")).toEqual({ path: "notes/todo.md", content });

		const commit = frames[7] as Extract<AgentFrame, { type: "commit" }>;
		expect(commit.sha).toMatch(/^[0-9a-f]{40}$/);
		const shown = await call("GET", "/agent/api/workspace/file?path=notes/todo.md", { headers });
		expect(shown.status).toBe(200);
		expect(await json(shown)).toEqual({ path: "notes/todo.md", content });
		const git = await json<{ commits: { sha: string; author: string; kind: string }[] }>(
			await call("GET", "/agent/api/workspace/git", { headers }),
		);
		expect(git.commits[0]).toMatchObject({ sha: commit.sha, author: user.email, kind: "you" });
		const summary = await home(user.id).summary(user.email, 10);
		expect(summary.commits[0]).toMatchObject({
			sha: commit.sha,
			msg: "Added the Acme call to your todo list.",
			author: user.email,
			kind: "you",
			files: ["notes/todo.md"],
		});

		const history = await json<{ turns: { ops?: unknown }[] }>(await call("GET", "/agent/api/sessions/main/history", { headers }));
		expect(history.turns.at(-1)?.ops).toEqual([
			{ label: "edit", tool: "write_file" },
			{ label: "read", tool: "read_file" },
		]);
	});

	it("refuses writes to policy paths, .git and outside the workspace at once: rejected frames, nothing lands", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [
			{
				tool_calls: [
					write("call_policy", "policy/members.json", '[{"subject":"mallory","role":"owner"}]'),
					write("call_escape", "../other/notes.md", "escaped"),
					write("call_git", ".git/config", "[core]"),
					{ id: "call_delete", name: "delete_file", arguments: { path: ".gitignore" } },
				],
			},
			{ text: ["I could not change those."] },
		]);
		const frames = await framesOf(await chat(headers, { prompt: `Make mallory an owner ${marker}` }));
		const results = frames.filter((f) => f.type === "tool-result");
		expect(results.map((r) => r.ok)).toEqual([false, false, false, false]);
		const rejected = frames.filter((f) => f.type === "rejected");
		expect(rejected).toHaveLength(4);
		expect(rejected[0]?.violations).toEqual([expect.stringContaining("policy/members.json")]);
		expect(rejected[1]?.violations).toEqual([expect.stringContaining("..")]);
		expect(rejected[2]?.violations).toEqual([expect.stringContaining(".git")]);
		expect(rejected[3]?.violations).toEqual([expect.stringContaining(".gitignore")]);
		expect(frames.some((f) => f.type === "commit")).toBe(false);
		expect(frames.at(-2)).toMatchObject({ type: "done", ok: true });
		// The model was told why.
		const toolMessages = bodyOf((await sent(marker))[1]).messages.filter((m) => m.role === "tool");
		expect(toolMessages[0]?.content).toContain("policy path");
		// Nothing was committed: the workspace has no history at all.
		expect((await home(user.id).summary(user.email, 10)).commits).toEqual([]);
		expect(await home(user.id).read("policy/members.json")).toBeNull();
		const absent = await call("GET", "/agent/api/workspace/file?path=policy/members.json", { headers });
		expect(absent.status).toBe(404);
		expect(await json(absent)).toEqual({ detail: "not found" });
	});

	it("a file written and removed in one turn never lands, and the rest of the turn commits", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [
			{
				tool_calls: [
					write("call_tmp", "scratch.md", "temporary"),
					write("call_keep", "kept.md", `kept ${marker}`),
					{ id: "call_rm", name: "delete_file", arguments: { path: "scratch.md" } },
					{ id: "call_list", name: "list_files", arguments: {} },
				],
			},
			{ text: ["Kept one file."] },
		]);
		const frames = await framesOf(await chat(headers, { prompt: `Scratch and keep ${marker}` }));
		expect(frames.filter((f) => f.type === "tool-result").map((f) => f.ok)).toEqual([true, true, true, true]);
		const listing = bodyOf((await sent(marker))[1]).messages.at(-1)?.content ?? "";
		expect(JSON.parse(listing).files).toContain("kept.md");
		expect(JSON.parse(listing).files).not.toContain("scratch.md");
		const commit = frames.find((f) => f.type === "commit") as Extract<AgentFrame, { type: "commit" }> | undefined;
		expect((await home(user.id).summary(user.email, 1)).commits[0]).toMatchObject({ sha: commit?.sha, files: ["kept.md"] });
		expect(await home(user.id).read("scratch.md")).toBeNull();
	});

	it("commits nothing for a turn that failed, even after a write", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [{ tool_calls: [write("call_w", "draft.md", "half done")] }, { status: 503 }]);
		const frames = await framesOf(await chat(headers, { prompt: `Draft it ${marker}` }));
		// The write was staged; the turn then failed, so it never landed.
		expect(frames.find((f) => f.type === "tool-result")).toMatchObject({ callId: "call_w", ok: true });
		expect(frames.some((f) => f.type === "commit")).toBe(false);
		expect(frames.at(-2)).toMatchObject({ type: "done", ok: false });
		expect(await home(user.id).read("draft.md")).toBeNull();
	});
});

describe("read-only workloads and the workspace", () => {
	it("offers an event workload the reading file tools only, refuses a write it makes anyway, and never commits", async () => {
		const { user } = await agentUser();
		await home(user.id).init(homeWorkspace(user.id), { name: "Seed", email: user.email });
		const before = await home(user.id).summary(user.email, 10);
		const marker = crypto.randomUUID();
		await script(marker, [{ tool_calls: [write("call_w", "notes/ro.md", "should not land")] }, { text: ["Done."] }]);
		const invocation: Invocation = {
			identity: { subject: String(user.id), launcher: "integration:meetings" },
			runner: "edge",
			workspaces: [{ id: "home", mode: "rw" }],
			trigger: "event",
			start: { entrypoint: { inline: `Write a note ${marker}` } },
		};
		const outcome = await agentStub(user.id).runInvocation({ userId: user.id, scopes: ["bot", "tx"], tokenId: 0 }, invocation);
		expect(outcome.ok).toBe(true);
		const offered = bodyOf((await sent(marker))[0]).tools?.map((t) => t.function.name) ?? [];
		expect(offered).toEqual(expect.arrayContaining(["read_file", "search_files", "list_files"]));
		expect(offered).not.toContain("write_file");
		expect(offered).not.toContain("delete_file");
		const events = (await agentStub(user.id).workload(outcome.workload_id))?.events ?? [];
		expect(events.find((f) => f.type === "tool-result")).toMatchObject({ ok: false });
		expect(events.some((f) => f.type === "commit")).toBe(false);
		expect(await home(user.id).read("notes/ro.md")).toBeNull();
		expect((await home(user.id).summary(user.email, 10)).commits).toEqual(before.commits);
	});
});

describe("the workspaces a unit names", () => {
	const unit = (id: string, marker: string) => ({
		identity: { subject: "x", launcher: "x" },
		runner: "edge",
		workspaces: [{ id, mode: "rw" }],
		trigger: "message",
		start: { entrypoint: { inline: `Tidy ${marker}` } },
	});

	it("refuses another user's workspace, and a shared one the caller is not a member of, with 403 and nothing run", async () => {
		const { headers } = await agentUser();
		const other = await userWithKey();
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["should not run"] }]);
		const theirs = `ws-${marker}`;
		await joinWorkspace(theirs, other.user.id);
		const named = [`home:${other.user.id}`, String(other.user.id), `repo:${other.user.id}:notes`, `shared:${theirs}`, theirs];
		for (const id of [...named, "999999999"]) {
			const res = await call("POST", "/agent/api/invocations", { headers, json: unit(id, marker) });
			expect(res.status, id).toBe(403);
			expect((await json<{ detail: string }>(res)).detail).toContain("is not yours");
		}
		expect(await sent(marker)).toEqual([]);
	});

	it("accepts the caller's own names and a shared workspace they are a member of, and works in it", async () => {
		const { user, headers } = await agentUser();
		for (const id of ["home", `home:${user.id}`, String(user.id), "active"]) {
			const res = await call("POST", "/agent/invocations", { headers, json: unit(id, crypto.randomUUID()) });
			expect(res.status, id).toBe(202);
			await res.body?.cancel();
		}
		const shared = `ws-${crypto.randomUUID()}`;
		await joinWorkspace(shared, user.id);
		const marker = crypto.randomUUID();
		await script(marker, [{ tool_calls: [write("call_w", "team/plan.md", `shared ${marker}`)] }, { text: ["Wrote the team plan."] }]);
		const invocation = unit(`shared:${shared}`, marker) as Invocation;
		const outcome = await agentStub(user.id).runInvocation({ userId: user.id, scopes: ["bot", "tx"], tokenId: 0 }, invocation);
		expect(outcome.ok).toBe(true);
		const sharedWorkspace = workspaceObject(env, `shared:${shared}`);
		expect((await sharedWorkspace.read("team/plan.md"))?.content).toBe(`shared ${marker}`);
		expect((await sharedWorkspace.summary(user.email, 1)).commits[0]).toMatchObject({ author: user.email, msg: "Wrote the team plan." });
		expect(await home(user.id).read("team/plan.md")).toBeNull();
	});

	it("works in the caller's own active workspace for an id that names no workspace of anyone, as the reference mounts the subject's", async () => {
		const { user, headers } = await agentUser();
		for (const id of ["u_jane", "main", `shared:nobody-${crypto.randomUUID()}`]) {
			const marker = crypto.randomUUID();
			await script(marker, [{ tool_calls: [write("call_w", `notes/${marker}.md`, `by ${id}`)] }, { text: ["Noted."] }]);
			const res = await call("POST", "/agent/invocations", { headers, json: unit(id, marker) });
			expect(res.status, id).toBe(202);
			const { workload_id } = await json<{ workload_id: string }>(res);
			const ended = await endedWorkload(`/agent/workloads/${workload_id}`, headers);
			expect(ended.last?.ok, id).toBe(true);
			expect((await home(user.id).read(`notes/${marker}.md`))?.content, id).toBe(`by ${id}`);
		}
	});

	it("runs a plan file of the workspace as the prompt, and fails one that is absent", async () => {
		const { user } = await agentUser();
		const marker = crypto.randomUUID();
		await home(user.id).commit({
			changes: [{ path: "plans/weekly.md", content: `Summarize the week ${marker}` }],
			message: "plan",
			author: { name: "Test", email: user.email },
			by: "platform",
		});
		await script(marker, [{ text: ["Your week was quiet."] }]);
		const invocation = (path: string): Invocation => ({
			identity: { subject: String(user.id), launcher: `user:${user.id}` },
			runner: "edge",
			workspaces: [{ id: "home", mode: "ro" }],
			trigger: "message",
			start: { entrypoint: { path } },
		});
		const caller = { userId: user.id, scopes: ["bot", "tx"] as ("bot" | "tx")[], tokenId: 0 };
		const ran = await agentStub(user.id).runInvocation(caller, invocation("plans/weekly.md"));
		expect(ran.ok).toBe(true);
		expect(bodyOf((await sent(marker))[0]).messages.at(-1)).toMatchObject({ role: "user", content: `Summarize the week ${marker}` });
		const absent = await agentStub(user.id).runInvocation(caller, invocation("plans/none.md"));
		expect(absent).toMatchObject({ ok: false, detail: 'Plan file "plans/none.md" not found in the workspace', retryable: false });
	});
});

describe("routines as files", () => {
	async function routineList(headers: Record<string, string>) {
		const res = await call("GET", "/agent/api/routines", { headers });
		expect(res.status).toBe(200);
		return (await json<{ routines: { id: string; name: string; cron: string | null; enabled: boolean; plan_summary: string }[] }>(res))
			.routines;
	}

	it("makes routines/<name>.md a routine of the user, ignores the README, reports a bad cron, and removes a deleted one", async () => {
		const { user, headers } = await agentUser();
		const marker = crypto.randomUUID();
		await script(marker, [
			{
				tool_calls: [
					write("call_daily", "routines/daily.md", "---\nenabled: true\ncron: 0 9 * * 1-5\nprompt: Brief me on today's meetings\n---\n"),
					write("call_weekly", "routines/weekly.md", "---\ncron: 0 17 * * 5\nenabled: false\n---\nSum up the week.\n"),
					write("call_readme", "routines/README.md", "---\ncron: * * * * *\n---\nNot a routine.\n"),
					write("call_bad", "routines/broken.md", "---\ncron: 61 * * * *\nprompt: never\n---\n"),
				],
			},
			{ text: ["Set up your routines."] },
		]);
		const frames = await framesOf(await chat(headers, { prompt: `Set up routines ${marker}` }));
		const commit = frames.find((f) => f.type === "commit") as Extract<AgentFrame, { type: "commit" }> | undefined;
		expect(commit?.sha).toMatch(/^[0-9a-f]{40}$/);
		expect(commit?.findings).toEqual([
			{ path: "routines/broken.md", problem: "cron: minute must be 0-59, got 61" },
			{ path: "routines/daily.md", problem: expect.stringContaining("stays disabled until you confirm it") },
			{ path: "routines/weekly.md", problem: expect.stringContaining("stays disabled until you confirm it") },
		]);
		expect(frames.at(-2)).toMatchObject({ type: "done", ok: true });

		// A turn wrote them, so each waits for the user's confirmation (routine-files.test.ts); confirming enables one.
		expect((await call("PATCH", "/agent/api/routines/daily/enabled", { headers, json: { enabled: true } })).status).toBe(200);
		const listed = await routineList(headers);
		expect(listed.map((r) => r.name).sort()).toEqual(["daily", "weekly"]);
		expect(listed.find((r) => r.name === "daily")).toMatchObject({
			cron: "0 9 * * 1-5",
			enabled: true,
			plan_summary: "Brief me on today's meetings",
		});
		expect(listed.find((r) => r.name === "weekly")).toMatchObject({ enabled: false, plan_summary: "Sum up the week." });
		// It runs with the key that made the commit.
		const key = await env.DB.prepare("SELECT id, scopes FROM api_tokens WHERE user_id = ?")
			.bind(user.id)
			.first<{ id: number; scopes: string }>();
		const rows = await runInDurableObject(agentStub(user.id), (_o, state) =>
			state.storage.sql
				.exec<{ token_id: number; scopes: string }>(
					`SELECT token_id, scopes FROM ${AGENT_USER_STORAGE.tables.routines} WHERE name = 'daily'`,
				)
				.toArray(),
		);
		expect(rows).toEqual([{ token_id: key?.id, scopes: key?.scopes }]);

		const second = crypto.randomUUID();
		await script(second, [
			{ tool_calls: [{ id: "call_rm", name: "delete_file", arguments: { path: "routines/daily.md" } }] },
			{ text: ["Removed the daily routine."] },
		]);
		const after = await framesOf(await chat(headers, { prompt: `Drop the daily routine ${second}` }));
		expect(after.some((f) => f.type === "commit")).toBe(true);
		expect((await routineList(headers)).map((r) => r.name)).toEqual(["weekly"]);
		expect(await home(user.id).read("routines/daily.md")).toBeNull();
	});

	it("leaves a routine made through the API alone when a file has its name", async () => {
		const { headers } = await agentUser();
		const made = await call("POST", "/agent/api/routines", {
			headers,
			json: { name: "daily", cron: "0 8 * * *", prompt: "API routine", run_now: false },
		});
		expect(made.status).toBe(201);
		const marker = crypto.randomUUID();
		await script(marker, [
			{ tool_calls: [write("call_daily", "routines/daily.md", "---\ncron: 0 9 * * *\nprompt: From a file\n---\n")] },
			{ text: ["Done."] },
		]);
		const frames = await framesOf(await chat(headers, { prompt: `Add a daily routine ${marker}` }));
		const commit = frames.find((f) => f.type === "commit") as Extract<AgentFrame, { type: "commit" }> | undefined;
		expect(commit?.findings).toEqual([{ path: "routines/daily.md", problem: expect.stringContaining("already exists") }]);
		expect((await routineList(headers)).map((r) => [r.name, r.cron, r.plan_summary])).toEqual([["daily", "0 8 * * *", "API routine"]]);
	});
});
