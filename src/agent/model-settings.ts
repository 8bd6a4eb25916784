/**
 * Which model a user's agent talks to: their /user/models settings over the deployment's
 * defaults. The address and its credential come from `resolveSettings` as one pair, so a
 * deployment credential only ever goes to the deployment's own base URL.
 */
import type { Env } from "../env";
import { loadSettings, type ResolvedSettings, resolveSettings } from "../settings/account-settings";
import type { ModelEndpoint } from "./model-client";

/** GET /agent/api/models: the model each part of the agent uses (null when none is configured). */
export interface ModelNames {
	chat_model: string | null;
	agent_model: string | null;
	streaming_model: string | null;
	meeting_model: string | null;
}

export type AgentModel = { ok: true; endpoint: ModelEndpoint; names: ModelNames } | { ok: false; message: string; names: ModelNames };

export async function resolveAgentModel(env: Env, userId: number): Promise<AgentModel> {
	return agentModelOf((await resolveSettings(env, await loadSettings(env, userId))).models);
}

/** The agent's model from model settings already resolved. */
export function agentModelOf(models: ResolvedSettings["models"]): AgentModel {
	const { model, base_url: baseUrl } = models;
	// The agent has one model for chat, tools and streaming; meetings may name their own.
	const names: ModelNames = {
		chat_model: model,
		agent_model: model,
		streaming_model: model,
		meeting_model: models.meeting_model ?? model,
	};
	if (!baseUrl || !model) {
		const missing = [!baseUrl && "base_url", !model && "model"].filter(Boolean).join(" and ");
		return {
			ok: false,
			message: `No model is configured: set ${missing} (and api_key if your provider needs one) with PUT /user/models`,
			names,
		};
	}
	return {
		ok: true,
		endpoint: { baseUrl, apiKey: models.api_key, model, guarded: models.base_url_owner === "account" },
		names,
	};
}

export type MeetingModel = { ok: true; endpoint: ModelEndpoint } | { ok: false; message: string };

/** The copilot's model for a user: `override` (agents/meeting.md) over their meeting model over their model. */
export async function resolveMeetingModel(env: Env, userId: number, override: string | null): Promise<MeetingModel> {
	return meetingModelOf((await resolveSettings(env, await loadSettings(env, userId))).models, override);
}

/**
 * The meeting model from model settings already resolved. A meeting model needs no agent model
 * beside it: an account (or deployment) that names only `meeting_model` has a copilot model.
 */
export function meetingModelOf(models: ResolvedSettings["models"], override: string | null): MeetingModel {
	const model = override ?? models.meeting_model ?? models.model;
	if (!models.base_url || !model) {
		const missing = [!models.base_url && "base_url", !model && "model (or meeting_model)"].filter(Boolean).join(" and ");
		return { ok: false, message: `no model is configured: set ${missing} with PUT /user/models` };
	}
	return {
		ok: true,
		endpoint: { baseUrl: models.base_url, apiKey: models.api_key, model, guarded: models.base_url_owner === "account" },
	};
}
