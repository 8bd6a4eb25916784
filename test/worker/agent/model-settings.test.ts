import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { streamModelStep } from "../../../src/agent/model-client";
import { type AgentModel, resolveAgentModel, resolveMeetingModel } from "../../../src/agent/model-settings";
import type { Env } from "../../../src/env";
import { outboundPolicy } from "../../../src/outbound/url-guard";
import type { RecordedModelRequest } from "../../receiver/model-script";
import { call, userWithKey } from "../support";

const ACCOUNT_KEY = "sk-account-own-key-5566778899";
const DEPLOYMENT_KEY = env.DEFAULT_MODEL_API_KEY ?? "";

/** The test env with a deployment model at the model server (under its own path, to tell the two apart). */
function withDeploymentModel(): Env {
	return { ...env, DEFAULT_MODEL_BASE_URL: `${env.MODEL_SERVER_URL}/deployment/v1`, DEFAULT_MODEL: "deployment-model" };
}

async function putModels(headers: Record<string, string>, body: Record<string, string>) {
	const res = await call("PUT", "/user/models", { headers, json: body });
	expect(res.status).toBe(200);
}

function endpointOf(resolved: AgentModel) {
	if (!resolved.ok) throw new Error(`expected a configured model, got: ${resolved.message}`);
	return resolved.endpoint;
}

/** Makes one real model call with the resolved endpoint and returns what the model server received. */
async function callModel(resolved: AgentModel): Promise<RecordedModelRequest> {
	const marker = crypto.randomUUID();
	await streamModelStep({
		endpoint: endpointOf(resolved),
		messages: [{ role: "user", content: `hello ${marker}` }],
		tools: [],
		policy: outboundPolicy(env),
		onText: () => undefined,
	});
	const res = await fetch(`${env.MODEL_SERVER_URL}/__requests?marker=${marker}`);
	const { requests } = (await res.json()) as { requests: RecordedModelRequest[] };
	expect(requests).toHaveLength(1);
	return requests[0] as RecordedModelRequest;
}

describe("resolveAgentModel", () => {
	it("is not configured without settings or deployment defaults, and says how to configure it", async () => {
		expect(DEPLOYMENT_KEY).not.toBe("");
		const { user } = await userWithKey();
		const resolved = await resolveAgentModel(env, user.id);
		expect(resolved.ok).toBe(false);
		if (resolved.ok) return;
		expect(resolved.message).toContain("PUT /user/models");
		expect(resolved.message).toContain("base_url and model");
		expect(resolved.message).not.toContain(DEPLOYMENT_KEY);
		expect(resolved.names).toEqual({ chat_model: null, agent_model: null, streaming_model: null, meeting_model: null });
	});

	it("names the one field still missing", async () => {
		const { user, headers } = await userWithKey();
		await putModels(headers, { model: "my-model", api_key: ACCOUNT_KEY });
		const resolved = await resolveAgentModel(env, user.id);
		expect(resolved).toMatchObject({ ok: false, names: { chat_model: "my-model", meeting_model: "my-model" } });
		if (resolved.ok) return;
		expect(resolved.message).toContain("set base_url");
		expect(resolved.message).not.toContain("set base_url and model");
		expect(resolved.message).not.toContain(ACCOUNT_KEY);
	});

	it("uses the account's base_url, api_key and model, judged by the guard, and the key reaches that URL", async () => {
		const { user, headers } = await userWithKey();
		await putModels(headers, { base_url: `${env.MODEL_SERVER_URL}/v1`, model: "my-model", api_key: ACCOUNT_KEY });
		const resolved = await resolveAgentModel(env, user.id);
		expect(resolved).toEqual({
			ok: true,
			endpoint: { baseUrl: `${env.MODEL_SERVER_URL}/v1`, apiKey: ACCOUNT_KEY, model: "my-model", guarded: true },
			names: { chat_model: "my-model", agent_model: "my-model", streaming_model: "my-model", meeting_model: "my-model" },
		});
		const sent = await callModel(resolved);
		expect(sent.path).toBe("/v1/chat/completions");
		expect(sent.headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
		expect((sent.body as { model: string }).model).toBe("my-model");

		await putModels(headers, { meeting_model: "my-meeting-model" });
		expect((await resolveAgentModel(env, user.id)).names).toMatchObject({ agent_model: "my-model", meeting_model: "my-meeting-model" });
	});

	it("falls back to the deployment's model, unguarded, with the deployment key", async () => {
		const { user } = await userWithKey();
		const resolved = await resolveAgentModel(withDeploymentModel(), user.id);
		expect(endpointOf(resolved)).toEqual({
			baseUrl: `${env.MODEL_SERVER_URL}/deployment/v1`,
			apiKey: DEPLOYMENT_KEY,
			model: "deployment-model",
			guarded: false,
		});
		const sent = await callModel(resolved);
		expect(sent.path).toBe("/deployment/v1/chat/completions");
		expect(sent.headers.authorization).toBe(`Bearer ${DEPLOYMENT_KEY}`);
	});

	it("never sends the deployment key to an account's own base_url", async () => {
		const { user, headers } = await userWithKey();
		await putModels(headers, { base_url: `${env.MODEL_SERVER_URL}/account/v1` });
		const resolved = await resolveAgentModel(withDeploymentModel(), user.id);
		// The account's address, the deployment's model name (plain fields fall through one by one), no key.
		expect(endpointOf(resolved)).toEqual({
			baseUrl: `${env.MODEL_SERVER_URL}/account/v1`,
			apiKey: null,
			model: "deployment-model",
			guarded: true,
		});
		const sent = await callModel(resolved);
		expect(sent.path).toBe("/account/v1/chat/completions");
		expect(sent.headers.authorization).toBeUndefined();
		expect(JSON.stringify(sent)).not.toContain(DEPLOYMENT_KEY);
	});

	it("sends an account's own key to the deployment's URL when the account sets only a key and a model", async () => {
		const { user, headers } = await userWithKey();
		await putModels(headers, { api_key: ACCOUNT_KEY, model: "my-model" });
		const resolved = await resolveAgentModel(withDeploymentModel(), user.id);
		expect(endpointOf(resolved)).toEqual({
			baseUrl: `${env.MODEL_SERVER_URL}/deployment/v1`,
			apiKey: ACCOUNT_KEY,
			model: "my-model",
			guarded: false,
		});
		expect((await callModel(resolved)).headers.authorization).toBe(`Bearer ${ACCOUNT_KEY}`);
	});
});

describe("resolveMeetingModel (the copilot's model)", () => {
	it("takes agents/meeting.md's model over the meeting model over the model, and needs no agent model beside a meeting model", async () => {
		const { user, headers } = await userWithKey();
		await putModels(headers, { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: ACCOUNT_KEY, meeting_model: "meeting-only" });
		// The agent has no model, yet the copilot does.
		expect((await resolveAgentModel(env, user.id)).ok).toBe(false);
		const resolved = await resolveMeetingModel(env, user.id, null);
		if (!resolved.ok) throw new Error(resolved.message);
		expect(resolved.endpoint).toEqual({ baseUrl: `${env.MODEL_SERVER_URL}/v1`, apiKey: ACCOUNT_KEY, model: "meeting-only", guarded: true });
		const override = await resolveMeetingModel(env, user.id, "from-meeting-md");
		expect(override.ok && override.endpoint.model).toBe("from-meeting-md");
		await putModels(headers, { model: "agent-model", meeting_model: "" });
		const fallback = await resolveMeetingModel(env, user.id, null);
		expect(fallback.ok && fallback.endpoint.model).toBe("agent-model");
	});

	it("uses the deployment's meeting model when the deployment names only that", async () => {
		const { user } = await userWithKey();
		const deployment = {
			...env,
			DEFAULT_MODEL_BASE_URL: `${env.MODEL_SERVER_URL}/deployment/v1`,
			DEFAULT_MEETING_MODEL: "deployment-meetings",
		};
		delete (deployment as { DEFAULT_MODEL?: string }).DEFAULT_MODEL;
		const resolved = await resolveMeetingModel(deployment, user.id, null);
		if (!resolved.ok) throw new Error(resolved.message);
		expect(resolved.endpoint).toMatchObject({ model: "deployment-meetings", apiKey: DEPLOYMENT_KEY, guarded: false });
	});

	it("says what is missing when nothing names a model or an address", async () => {
		const { user } = await userWithKey();
		const resolved = await resolveMeetingModel(env, user.id, null);
		expect(resolved).toEqual({
			ok: false,
			message: "no model is configured: set base_url and model (or meeting_model) with PUT /user/models",
		});
	});
});
