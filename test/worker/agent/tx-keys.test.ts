/**
 * A `tx` key reads (docs/dashboard.md, docs/agent.md): on the agent plane its chat turns and
 * invocations run read-only, and what keeps running or keeps files (routines, uploads, swap,
 * init, the meeting copilot) answers 403 and changes nothing.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentFrame } from "../../../src/agent/frames";
import { workspaceObject } from "../../../src/objects";
import { homeWorkspace } from "../../../src/workspace/workspace-names";
import { call, json, mintKey } from "../support";
import { agentUser, bodyOf, chat, endedWorkload, script, sent } from "./helpers";
import { readAll } from "./sse";

/** The 403 of a tx key on a route that takes `bot`, naming the route it was refused on. */
const forbidden = (route: string) => ({
	detail: `Token scope not authorized for this endpoint: this API key lacks the "bot" scope needed for ${route}; it has: tx`,
});

async function txReader() {
	const owner = await agentUser();
	return { ...owner, tx: { "X-API-Key": await mintKey(owner.user.id, "tx") } };
}

describe("a tx-only key on the agent plane", () => {
	it("chats read-only: no writing tool is offered, a write it asks for is refused, nothing is committed", async () => {
		const { user, tx } = await txReader();
		const marker = crypto.randomUUID();
		await script(marker, [
			{
				tool_calls: [
					{ id: "call_w", name: "write_file", arguments: { path: "routines/x.md", content: "---\ncron: 0 * * * *\nprompt: go\n---\n" } },
				],
			},
			{ text: ["I can only read."] },
		]);
		const frames = (await readAll(await chat(tx, { prompt: `Schedule it ${marker}` }))).map((e) => e.frame);
		const offered = bodyOf((await sent(marker))[0]).tools?.map((t) => t.function.name) ?? [];
		expect(offered).toEqual(expect.arrayContaining(["read_file", "list_meetings"]));
		for (const writing of ["write_file", "delete_file", "send_bot", "send_chat", "speak", "stop_bot"])
			expect(offered).not.toContain(writing);
		expect(frames.find((f) => f.type === "tool-result")).toMatchObject({ callId: "call_w", ok: false });
		expect(frames.some((f: AgentFrame) => f.type === "commit")).toBe(false);
		expect(await workspaceObject(env, homeWorkspace(user.id)).read("routines/x.md")).toBeNull();
		expect((await json<{ routines: unknown[] }>(await call("GET", "/agent/routines", { headers: tx }))).routines).toEqual([]);
	});

	it("runs an invocation that asked rw as ro", async () => {
		const { tx } = await txReader();
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["Read only."] }]);
		const res = await call("POST", "/agent/api/invocations", {
			headers: tx,
			json: {
				identity: { subject: "x", launcher: "x" },
				runner: "edge",
				workspaces: [{ id: "home", mode: "rw" }],
				trigger: "message",
				start: { entrypoint: { inline: `Tidy up ${marker}` } },
			},
		});
		expect(res.status).toBe(202);
		const workload = await endedWorkload(`/agent/api/workloads/${(await json<{ workload_id: string }>(res)).workload_id}`, tx);
		expect(workload).toMatchObject({ status: "completed", mode: "ro" });
		const offered = bodyOf((await sent(marker))[0]).tools?.map((t) => t.function.name) ?? [];
		expect(offered).not.toContain("write_file");
	});

	it("answers 403 to making or changing routines, uploads, init, swap and the meeting copilot, and changes nothing", async () => {
		const { headers, tx } = await txReader();
		const made = await call("POST", "/agent/routines", { headers, json: { name: "Brief", cron: "0 8 * * *", prompt: "Brief me." } });
		const { routine } = await json<{ routine: { id: string } }>(made);
		const form = new FormData();
		form.append("files", new File(["hello"], "notes.txt", { type: "text/plain" }));
		const attempts: [string, string, { json?: unknown; body?: BodyInit }][] = [
			["POST", "/agent/api/routines", { json: { name: "Other", cron: "0 9 * * *", prompt: "x" } }],
			["PATCH", "/agent/routines/Brief/enabled", { json: { enabled: false } }],
			["DELETE", `/agent/routines/${routine.id}`, {}],
			["POST", "/agent/workspace/upload", { body: form }],
			["POST", "/agent/api/workspace/init", {}],
			["POST", "/agent/workspace/swap", { json: { repo: "https://git.example.com/team/notes.git" } }],
			// The copilot runs the owner's model and commits to their workspace: it acts, so it takes `bot`.
			["POST", "/agent/meeting/start", { json: { platform: "google_meet", native_id: "txk-copi-lot" } }],
			["POST", "/agent/api/meeting/process", { json: { platform: "google_meet", native_id: "txk-copi-lot", on: true } }],
		];
		for (const [method, path, body] of attempts) {
			const res = await call(method, path, { headers: tx, ...body });
			expect(res.status, `${method} ${path}`).toBe(403);
			expect(await json(res)).toEqual(forbidden(`${method} ${path}`));
		}
		const routines = await json<{ routines: { name: string; enabled: boolean }[] }>(await call("GET", "/agent/routines", { headers: tx }));
		expect(routines.routines.map((r) => [r.name, r.enabled])).toEqual([["Brief", true]]);
		const meetings = await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers: tx }));
		expect(meetings.meetings).toEqual([]);
		expect(await json(await call("GET", "/agent/workspace/tree", { headers: tx }))).toEqual({ files: [] });
		expect((await json<{ active: { kind: string } }>(await call("GET", "/agent/workspace/attached", { headers: tx }))).active.kind).toBe(
			"home",
		);
	});
});
