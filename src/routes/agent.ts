import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { agentCaller } from "../agent/caller";
import {
	checkEvent,
	checkInvocation,
	invocationFromEvent,
	subjectFor,
	unknownTools,
	withCaller,
	workloadBelongsTo,
} from "../agent/envelopes";
import { agentModelOf, resolveAgentModel } from "../agent/model-settings";
import { unitWorkspaces } from "../agent/unit-workspaces";
import type { AppEnv } from "../app-env";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { agentUser } from "../objects";
import { endpointAllowed, loadSettings, resolveSettings } from "../settings/account-settings";
import {
	AgentHealth,
	AgentModels,
	ENVELOPE_COMPONENTS,
	EventAccepted,
	eventBodyRef,
	invocationBodyRef,
	Workload,
	WorkloadAccepted,
} from "./agent-schemas";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/**
 * The agent plane (docs/agent.md): health, models, invocations, events and workloads. Mounted
 * under each of AGENT_PREFIXES. The caller is always the key's user: a `subject` in a body
 * never chooses whose agent runs.
 */
export const agentRoutes = routeModule();

for (const [name, schema] of Object.entries(ENVELOPE_COMPONENTS)) agentRoutes.openAPIRegistry.registerComponent("schemas", name, schema);

const errors = (statuses: Record<number, string>) =>
	Object.fromEntries(Object.entries(statuses).map(([status, description]) => [status, jsonResponse(ApiErrorBody, description)]));

const callerOf = (c: Context<AppEnv>) => agentCaller(c.get("identity"));

/** The model name GET /models gives a part of the agent with no model configured (the reference's word). */
export const UNCONFIGURED_MODEL = "default";

/**
 * The body as the client sent it, parsed but not judged: the envelope checks name the first
 * violation themselves, which a schema validator in front of them would pre-empt.
 */
async function rawJson(c: Context<AppEnv>, envelope: "Invocation" | "Event"): Promise<unknown> {
	const text = await c.req.text();
	try {
		return JSON.parse(text);
	} catch {
		throw new ApiError(400, `${envelope} envelope is not conformant: the body is not JSON`);
	}
}

/**
 * Whether the caller's model can be reached: configured when one resolves, misconfigured when
 * the account's own address is one the outbound guard refuses (a turn would fail on it).
 */
async function modelInferenceState(env: Env, userId: number): Promise<"configured" | "not_configured" | "misconfigured"> {
	const { models } = await resolveSettings(env, await loadSettings(env, userId));
	if (models.base_url && !endpointAllowed(env, models.base_url, models.base_url_owner).ok) return "misconfigured";
	return agentModelOf(models).ok ? "configured" : "not_configured";
}

agentRoutes.openapi(
	createRoute({
		method: "get",
		path: "/health",
		responses: { 200: jsonResponse(AgentHealth, "The agent plane is up; whether the caller's model is usable") },
	}),
	async (c) => {
		const state = await modelInferenceState(c.env, c.get("identity").userId);
		return c.json(
			{ status: "ok" as const, service: "agent" as const, checks: { dispatcher: true }, capabilities: { model_inference: { state } } },
			200,
		);
	},
);

agentRoutes.openapi(
	createRoute({
		method: "get",
		path: "/models",
		responses: { 200: jsonResponse(AgentModels, "The model each part of the caller's agent uses; `default` when none is configured") },
	}),
	async (c) => {
		const { names } = await resolveAgentModel(c.env, c.get("identity").userId);
		// Always strings, as docs/agent.md#models and the reference have them: `default` stands for "nothing configured".
		const named = (name: string | null) => name ?? UNCONFIGURED_MODEL;
		return c.json(
			{
				chat_model: named(names.chat_model),
				agent_model: named(names.agent_model),
				streaming_model: named(names.streaming_model),
				meeting_model: named(names.meeting_model),
			},
			200,
		);
	},
);

agentRoutes.openapi(
	createRoute({
		method: "post",
		path: "/invocations",
		request: { body: { required: true, content: { "application/json": { schema: invocationBodyRef } } } },
		responses: {
			202: jsonResponse(WorkloadAccepted, "Dispatched; the workload runs to its end whether or not anyone listens"),
			...errors({
				400: "The envelope is not unit.v1, or not JSON: the detail names the first violation",
				403: "A workspace the envelope names is not the caller's own, nor a shared workspace they are a member of",
			}),
		},
	}),
	async (c) => {
		const check = checkInvocation(await rawJson(c, "Invocation"));
		if (!check.ok) throw new ApiError(check.status, check.detail);
		const caller = callerOf(c);
		const named = await unitWorkspaces(c.env, caller.userId, check.value);
		if (!named.ok) throw new ApiError(403, named.detail);
		const { workload_id } = await agentUser(c.env, caller.userId).dispatch(caller, withCaller(check.value, subjectFor(caller.userId)));
		const unknown = unknownTools(check.value);
		return c.json({ workload_id, ...(unknown.length ? { unknown_tools: unknown.slice(0, 50) } : {}) }, 202);
	},
);

agentRoutes.openapi(
	createRoute({
		method: "post",
		path: "/events",
		request: { body: { required: true, content: { "application/json": { schema: eventBodyRef } } } },
		responses: {
			202: jsonResponse(EventAccepted, "Mapped to an invocation and dispatched"),
			...errors({
				400: "The envelope is not event.v1, or not JSON: the detail names the first violation",
				422: "The event carries no plan",
			}),
		},
	}),
	async (c) => {
		const check = checkEvent(await rawJson(c, "Event"));
		if (!check.ok) throw new ApiError(check.status, check.detail);
		const caller = callerOf(c);
		const invocation = invocationFromEvent(check.value, subjectFor(caller.userId));
		const { workload_id } = await agentUser(c.env, caller.userId).dispatch(caller, invocation);
		return c.json({ workload_id, trigger: invocation.trigger as "event" | "transcription" }, 202);
	},
);

agentRoutes.openapi(
	createRoute({
		method: "get",
		path: "/workloads/{workload_id}",
		request: { params: z.object({ workload_id: z.string().min(1).max(200) }) },
		responses: {
			200: jsonResponse(Workload, "The workload's status, mode and event log"),
			...errors({ 404: "No such workload of the caller's" }),
		},
	}),
	async (c) => {
		const { workload_id } = c.req.valid("param");
		const { userId } = c.get("identity");
		// An id names its user; another user's id is not looked up at all, in any object.
		const view = workloadBelongsTo(workload_id, subjectFor(userId)) ? await agentUser(c.env, userId).workload(workload_id) : null;
		if (!view) throw new ApiError(404, "Workload not found");
		// The object's view has plain strings; the response is the documented shape, checked.
		return c.json(Workload.parse(view), 200);
	},
);
