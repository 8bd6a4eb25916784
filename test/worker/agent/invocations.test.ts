import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { toolsFor } from "../../../src/agent/tools";
import { TurnFiles } from "../../../src/agent/turn-files";
import { AGENT_PREFIXES } from "../../../src/gateway/route-scopes";
import { AgentHealth, AgentModels, EventAccepted, Workload, WorkloadAccepted } from "../../../src/routes/agent-schemas";
import type { RecordedModelRequest } from "../../receiver/model-script";
import { meetCode } from "../../shared/meetings";
import { call, expectDocumented, json, userWithKey } from "../support";
import meetingEvent from "./golden/Event.meeting.json";
import messageInvocation from "./golden/Invocation.message.json";
import { endedWorkload } from "./helpers";

// Every form the agent plane answers on, the legacy `/api` alias included (docs/agent.md).
const PREFIXES = AGENT_PREFIXES;

/** Every row and key the user's agent object holds, but its (always present, maybe empty) timer table. */
async function agentObjectContents(userId: number): Promise<unknown[]> {
	const stub = env.AGENT_USER.get(env.AGENT_USER.idFromName(String(userId)));
	return runInDurableObject(stub, async (_object, state) => {
		const tables = state.storage.sql
			.exec<{ name: string }>(
				"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'",
			)
			.toArray()
			.map((row) => row.name);
		const rows = tables.flatMap((table) =>
			state.storage.sql
				.exec(`SELECT * FROM "${table}"`)
				.toArray()
				.map((row) => ({ table, row })),
		);
		const keys = [...(await state.storage.list()).keys()];
		return [...rows, ...keys];
	});
}

// The golden names the reference's subject as its workspace; here the caller's own is `home`.
const invocation = (fields: Record<string, unknown> = {}) => ({
	...structuredClone(messageInvocation),
	workspaces: [{ id: "home", mode: "rw" }],
	...fields,
});
const workspacesRw = (fields: Record<string, unknown>) => invocation({ workspaces: [{ id: "home", mode: "rw" }], ...fields });

const ACCOUNT_KEY = "sk-account-agent-key-24680";

/** The caller's own model at the test model server. */
async function useModelServer(headers: Record<string, string>, model = "agent-model-1") {
	const res = await call("PUT", "/user/models", { headers, json: { base_url: `${env.MODEL_SERVER_URL}/v1`, model, api_key: ACCOUNT_KEY } });
	expect(res.status).toBe(200);
}

async function script(marker: string, steps: unknown[]) {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__script`, { method: "POST", body: JSON.stringify({ marker, steps }) });
	expect(res.status).toBe(200);
}

async function modelRequests(marker: string): Promise<RecordedModelRequest[]> {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__requests?marker=${marker}`);
	return ((await res.json()) as { requests: RecordedModelRequest[] }).requests;
}

describe("POST /agent/invocations: refusals", () => {
	it.each(PREFIXES)(
		"answers a non-conformant envelope under %s with 400 naming the first violation, and stores nothing",
		async (prefix) => {
			const { user, headers } = await userWithKey();
			const res = await call("POST", `${prefix}/invocations`, { headers, json: invocation({ workspaces: [{ id: "w", mode: "admin" }] }) });
			expect(res.status).toBe(400);
			expect(await json(res)).toEqual({ detail: 'Invocation envelope is not conformant: /workspaces/0/mode: must be one of ["ro","rw"]' });
			expect(await agentObjectContents(user.id)).toEqual([]);
		},
	);

	it("refuses a top-level subject in words, rather than acting for it", async () => {
		const { user, headers } = await userWithKey();
		const res = await call("POST", "/agent/invocations", { headers, json: invocation({ subject: "u_jane" }) });
		expect(res.status).toBe(400);
		expect((await json<{ detail: string }>(res)).detail).toMatch(
			/^Invocation envelope is not conformant: \/subject: no top-level subject in an invocation/,
		);
		expect(await agentObjectContents(user.id)).toEqual([]);
	});

	it("refuses two start forms at once", async () => {
		const { headers } = await userWithKey();
		const res = await call("POST", "/agent/api/invocations", {
			headers,
			json: invocation({ start: { entrypoint: { inline: "hi" }, session: { ref: ".session" } } }),
		});
		expect(await json(res)).toEqual({
			detail: "Invocation envelope is not conformant: /start: give exactly one of entrypoint or session (got both)",
		});
	});

	it.each(PREFIXES)("answers a body that is not JSON under %s with 400", async (prefix) => {
		const { headers } = await userWithKey();
		const res = await call("POST", `${prefix}/invocations`, {
			headers: { ...headers, "content-type": "application/json" },
			body: "{identity:",
		});
		expect(res.status).toBe(400);
		expect(await json(res)).toEqual({ detail: "Invocation envelope is not conformant: the body is not JSON" });
		const events = await call("POST", `${prefix}/events`, { headers, body: "" });
		expect(await json(events)).toEqual({ detail: "Event envelope is not conformant: the body is not JSON" });
	});
});

describe("POST /agent/events: refusals", () => {
	it.each(PREFIXES)("answers an event without a plan under %s with 422, and stores nothing", async (prefix) => {
		const { user, headers } = await userWithKey();
		const { plan: _plan, ...planless } = structuredClone(meetingEvent);
		const res = await call("POST", `${prefix}/events`, { headers, json: planless });
		expect(res.status).toBe(422);
		expect(await json(res)).toEqual({ detail: "The event carries no plan: give plan.prompt or plan.ref" });
		expect(await agentObjectContents(user.id)).toEqual([]);
	});

	it("answers a non-conformant event with 400 before looking at its plan", async () => {
		const { user, headers } = await userWithKey();
		const res = await call("POST", "/agent/api/events", { headers, json: { name: "meeting.completed", meeting: { meeting_id: "m" } } });
		expect(res.status).toBe(400);
		expect(await json(res)).toEqual({ detail: 'Event envelope is not conformant: /: missing required field "subject"' });
		expect(await agentObjectContents(user.id)).toEqual([]);
	});
});

describe("dispatch: the workload is the caller's", () => {
	it.each(PREFIXES)("under %s: 202 with a workload of the key's user, whatever identity the body claims", async (prefix) => {
		const { user, headers } = await userWithKey();
		const posted = invocation({ identity: { subject: "u_jane", launcher: "user:u_jane", token: "forged" } });
		const { workload_id } = await expectDocumented(
			WorkloadAccepted,
			await call("POST", `${prefix}/invocations`, { headers, json: posted }),
			202,
		);
		expect(workload_id.startsWith(`agent-${user.id}-`)).toBe(true);
		// What the refusal tests see as empty holds the workload now.
		expect((await agentObjectContents(user.id)).length).toBeGreaterThan(0);

		const workload = await expectDocumented(Workload, await call("GET", `${prefix}/workloads/${workload_id}`, { headers }), 200);
		expect(workload).toMatchObject({ workload_id, trigger: "message", mode: "rw", launcher: `user:${user.id}` });

		const other = await userWithKey();
		const stranger = await call("GET", `${prefix}/workloads/${workload_id}`, { headers: other.headers });
		expect(stranger.status).toBe(404);
		expect(await json(stranger)).toEqual({ detail: "Workload not found" });
	});

	it("records the derived mode: an event-triggered invocation asking rw runs ro", async () => {
		const { headers } = await userWithKey();
		const posted = workspacesRw({ trigger: "event" });
		const { workload_id } = await expectDocumented(
			WorkloadAccepted,
			await call("POST", "/agent/invocations", { headers, json: posted }),
			202,
		);
		const workload = await expectDocumented(Workload, await call("GET", `/agent/workloads/${workload_id}`, { headers }), 200);
		expect(workload.mode).toBe("ro");
	});

	it("maps a meeting.completed event to a read-only transcription of the caller's, ignoring the body's subject", async () => {
		const { user, headers } = await userWithKey();
		const accepted = await expectDocumented(EventAccepted, await call("POST", "/agent/api/events", { headers, json: meetingEvent }), 202);
		expect(accepted.trigger).toBe("transcription");
		expect(accepted.workload_id.startsWith(`agent-${user.id}-`)).toBe(true);
		const workload = await expectDocumented(Workload, await call("GET", `/agent/api/workloads/${accepted.workload_id}`, { headers }), 200);
		expect(workload).toMatchObject({ trigger: "transcription", mode: "ro", launcher: "integration:meetings" });
	});
});

const offeredTools = (request: RecordedModelRequest | undefined) =>
	((request?.body as { tools?: { function: { name: string } }[] } | undefined)?.tools ?? []).map((tool) => tool.function.name).sort();

describe("a dispatched workload runs to its end with the caller's model", () => {
	it("runs a posted message invocation with the user's model and key, and records the reply", async () => {
		const { headers } = await userWithKey();
		await useModelServer(headers);
		const marker = `invoke-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["Open tasks: ", "none."] }]);
		const posted = invocation({ start: { entrypoint: { inline: `List my open tasks ${marker}` } } });
		const { workload_id } = await expectDocumented(
			WorkloadAccepted,
			await call("POST", "/agent/api/invocations", { headers, json: posted }),
			202,
		);
		const workload = await endedWorkload(`/agent/api/workloads/${workload_id}`, headers);
		expect(workload).toMatchObject({
			status: "completed",
			runs: 1,
			mode: "rw",
			last: { ok: true, detail: null, reply: "Open tasks: none." },
		});
		expect(workload.events.map((frame) => frame.type)).toContain("message-delta");
		const requests = await modelRequests(marker);
		expect(requests).toHaveLength(1);
		expect(requests[0]?.headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
		expect(requests[0]?.body).toMatchObject({ model: "agent-model-1" });
	});
	it("offers an event-triggered workload that asked rw only the tools that do not write", async () => {
		const { headers } = await userWithKey();
		await useModelServer(headers);
		const rwMarker = `rw-${crypto.randomUUID()}`;
		const roMarker = `ro-${crypto.randomUUID()}`;
		const rw = workspacesRw({ trigger: "message", start: { entrypoint: { inline: `Tidy up ${rwMarker}` } } });
		const ro = workspacesRw({ trigger: "event", start: { entrypoint: { inline: `Tidy up ${roMarker}` } } });
		for (const body of [rw, ro]) {
			const { workload_id } = await expectDocumented(
				WorkloadAccepted,
				await call("POST", "/agent/invocations", { headers, json: body }),
				202,
			);
			await endedWorkload(`/agent/workloads/${workload_id}`, headers);
		}
		const rwTools = offeredTools((await modelRequests(rwMarker))[0]);
		const roTools = offeredTools((await modelRequests(roMarker))[0]);
		const writing = rwTools.filter((name) => !roTools.includes(name));
		// The same key and user: the one difference is the derived mode, which withholds every writing tool.
		expect(writing.length).toBeGreaterThan(0);
		expect(roTools.every((name) => rwTools.includes(name))).toBe(true);
		const writesByName = new Map(
			toolsFor({ env, userId: 0, scopes: ["bot", "tx"], mode: "rw", files: new TurnFiles(env, "home:0", 0, () => {}) }).map((tool) => [
				tool.spec.function.name,
				tool.writes,
			]),
		);
		expect(writing.every((name) => writesByName.get(name) === true)).toBe(true);
		expect(roTools.filter((name) => writesByName.get(name) !== false)).toEqual([]);
	});
});

describe("the invocation's tools list", () => {
	it("offers only the listed tools and refuses in the turn a call outside the list, so no bot is sent", async () => {
		const { headers } = await userWithKey();
		await useModelServer(headers);
		const marker = `tools-${crypto.randomUUID()}`;
		const code = meetCode();
		await script(marker, [
			{ tool_calls: [{ id: "call_send", name: "send_bot", arguments: { platform: "google_meet", native_meeting_id: code } }] },
			{ text: ["I may not send bots here."] },
		]);
		const posted = workspacesRw({ tools: ["list_meetings"], start: { entrypoint: { inline: `Join my meeting ${marker}` } } });
		const { workload_id } = await expectDocumented(
			WorkloadAccepted,
			await call("POST", "/agent/invocations", { headers, json: posted }),
			202,
		);
		const workload = await endedWorkload(`/agent/workloads/${workload_id}`, headers);
		expect(workload).toMatchObject({ status: "completed", mode: "rw" });

		const requests = await modelRequests(marker);
		expect(offeredTools(requests[0])).toEqual(["list_meetings"]);
		// Refused in the turn, reported in its frames, and the model is told why.
		expect(workload.events.find((f) => f.type === "tool-result")).toMatchObject({
			callId: "call_send",
			ok: false,
			summary: "send_bot is not allowed in this invocation",
		});
		const told = (requests[1]?.body as { messages: { role: string; content: string | null }[] } | undefined)?.messages.at(-1);
		expect(told).toEqual({
			role: "tool",
			tool_call_id: "call_send",
			content: JSON.stringify({ error: "send_bot is not allowed in this invocation (its tools: list_meetings)" }),
		});
		const bots = await json<{ running_bots: unknown[] }>(await call("GET", "/bots/status", { headers }));
		expect(bots.running_bots).toEqual([]);
		const meetings = await json<{ meetings: { native_meeting_id: string }[] }>(await call("GET", "/meetings", { headers }));
		expect(meetings.meetings.some((m) => m.native_meeting_id === code)).toBe(false);
	});

	it("reports tool names the agent does not have in the 202 and grants nothing for them, as the reference drops them", async () => {
		const { headers } = await userWithKey();
		await useModelServer(headers);
		const marker = `unknown-tools-${crypto.randomUUID()}`;
		await script(marker, [
			{ tool_calls: [{ id: "call_shell", name: "shell", arguments: { command: "id" } }] },
			{ text: ["There is no shell."] },
		]);
		const posted = workspacesRw({
			tools: ["list_meetings", "exfiltrate", "shell", "exfiltrate"],
			start: { entrypoint: { inline: `Run a command ${marker}` } },
		});
		const accepted = await expectDocumented(WorkloadAccepted, await call("POST", "/agent/api/invocations", { headers, json: posted }), 202);
		expect(accepted.unknown_tools).toEqual(["exfiltrate", "shell"]);
		const workload = await endedWorkload(`/agent/workloads/${accepted.workload_id}`, headers);
		expect(workload).toMatchObject({ status: "completed" });
		const requests = await modelRequests(marker);
		expect(offeredTools(requests[0])).toEqual(["list_meetings"]);
		expect(workload.events.find((f) => f.type === "tool-result")).toMatchObject({ callId: "call_shell", ok: false });
	});

	it("leaves unknown_tools out when every listed name is a tool", async () => {
		const { headers } = await userWithKey();
		const accepted = await expectDocumented(
			WorkloadAccepted,
			await call("POST", "/agent/invocations", { headers, json: invocation({ tools: ["list_meetings"] }) }),
			202,
		);
		expect(accepted).toEqual({ workload_id: expect.any(String) });
	});
});

describe("GET /agent/workloads/{id}", () => {
	it.each(PREFIXES)("under %s: 404 for an unknown id of the caller's and for another user's id", async (prefix) => {
		const { user, headers } = await userWithKey();
		for (const id of [`agent-${user.id}-message-unknown`, `agent-${user.id + 1}-message-abc`, "nonsense"]) {
			const res = await call("GET", `${prefix}/workloads/${id}`, { headers });
			expect(res.status).toBe(404);
			expect(await json(res)).toEqual({ detail: "Workload not found" });
		}
	});
});

describe("GET /agent/health and /agent/api/models", () => {
	it.each(PREFIXES)("under %s: health says the dispatcher is up and no model is configured for a new user", async (prefix) => {
		const { headers } = await userWithKey();
		const health = await expectDocumented(AgentHealth, await call("GET", `${prefix}/health`, { headers }), 200);
		expect(health).toEqual({
			status: "ok",
			service: "agent",
			checks: { dispatcher: true },
			capabilities: { model_inference: { state: "not_configured" } },
		});
	});

	it("says misconfigured when the account's model address is one the outbound guard refuses", async () => {
		const { user, headers } = await userWithKey();
		const put = await call("PUT", "/user/models", {
			headers,
			json: { model: "m-1", base_url: "https://models.example.com/v1", api_key: "sk-test-1234" },
		});
		expect(put.status).toBe(200);
		// Saved when allowed; the guard refuses it now (metadata addresses stay refused even where private ones are allowed).
		await env.DB.prepare("UPDATE account_settings SET model_base_url = ? WHERE user_id = ?")
			.bind("http://169.254.169.254/v1", user.id)
			.run();
		const health = await expectDocumented(AgentHealth, await call("GET", "/agent/health", { headers }), 200);
		expect(health.capabilities.model_inference.state).toBe("misconfigured");
	});

	it.each(PREFIXES)("under %s: health says configured, and models names the user's model, once one is set", async (prefix) => {
		const { headers } = await userWithKey();
		await useModelServer(headers, "their-model");
		const health = await expectDocumented(AgentHealth, await call("GET", `${prefix}/health`, { headers }), 200);
		expect(health.capabilities.model_inference.state).toBe("configured");
		const models = await expectDocumented(AgentModels, await call("GET", `${prefix}/models`, { headers }), 200);
		expect(models).toEqual({
			chat_model: "their-model",
			agent_model: "their-model",
			streaming_model: "their-model",
			meeting_model: "their-model",
		});
	});

	it.each(PREFIXES)("under %s: models names the four models with strings, `default` when none is configured", async (prefix) => {
		const { headers } = await userWithKey();
		const models = await expectDocumented(AgentModels, await call("GET", `${prefix}/models`, { headers }), 200);
		expect(models).toEqual({ chat_model: "default", agent_model: "default", streaming_model: "default", meeting_model: "default" });
		// Only a meeting model set: the others still say `default`.
		expect((await call("PUT", "/user/models", { headers, json: { meeting_model: "notes-model" } })).status).toBe(200);
		expect(await json(await call("GET", `${prefix}/models`, { headers }))).toEqual({
			chat_model: "default",
			agent_model: "default",
			streaming_model: "default",
			meeting_model: "notes-model",
		});
	});
});

describe("scopes", () => {
	it("lets a tx-only key in and keeps a browser key out", async () => {
		const tx = await userWithKey("tx");
		expect((await call("GET", "/agent/health", { headers: tx.headers })).status).toBe(200);
		expect((await call("POST", "/agent/api/events", { headers: tx.headers, json: { name: "x.y", subject: "s" } })).status).toBe(422);
		const browser = await userWithKey("browser");
		for (const [method, path] of [
			["GET", "/agent/health"],
			["GET", "/agent/api/models"],
			["POST", "/agent/invocations"],
			["POST", "/agent/api/events"],
			["GET", "/agent/workloads/agent-1-message-x"],
		] as const) {
			const res = await call(method, path, { headers: browser.headers, json: method === "POST" ? messageInvocation : undefined });
			expect(res.status, `${method} ${path}`).toBe(403);
		}
		expect((await call("GET", "/agent/health")).status).toBe(401);
	});
});

describe("/openapi.json", () => {
	it("documents every agent route of this module under both prefixes, the envelopes as the contract schemas", async () => {
		const doc = await json<{
			paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>>;
			components: { schemas: Record<string, { $ref?: string; properties?: Record<string, unknown> }> };
		}>(await call("GET", "/openapi.json"));
		// The legacy alias answers, but clients are pointed at /agent: the document leaves it out.
		expect(Object.keys(doc.paths).filter((path) => path.startsWith("/api/"))).toEqual([]);
		for (const prefix of ["/agent/api", "/agent"]) {
			expect(Object.keys(doc.paths)).toEqual(
				expect.arrayContaining([
					`${prefix}/health`,
					`${prefix}/models`,
					`${prefix}/invocations`,
					`${prefix}/events`,
					`${prefix}/workloads/{workload_id}`,
				]),
			);
			expect(doc.paths[`${prefix}/invocations`]?.post?.requestBody?.content["application/json"]?.schema).toEqual({
				$ref: "#/components/schemas/UnitV1Invocation",
			});
			expect(doc.paths[`${prefix}/events`]?.post?.requestBody?.content["application/json"]?.schema).toEqual({
				$ref: "#/components/schemas/EventV1Event",
			});
		}
		const invocationSchema = doc.components.schemas.UnitV1Invocation;
		expect(Object.keys(invocationSchema?.properties ?? {})).toEqual([
			"identity",
			"runner",
			"workspaces",
			"tools",
			"trigger",
			"context",
			"start",
		]);
		// Every reference inside the envelopes points at a component the document holds.
		const refs = JSON.stringify(doc.components.schemas).match(/"\$ref":"[^"]+"/g) ?? [];
		for (const ref of refs) {
			const name = ref.replace(/^"\$ref":"#\/components\/schemas\//, "").replace(/"$/, "");
			expect(doc.components.schemas[name], ref).toBeDefined();
		}
	});
});
