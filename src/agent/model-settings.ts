/**
 * Which model a user's agent talks to: their /user/models settings over the deployment's
 * defaults. SKELETON: the signatures are the contract; the model client work builds them.
 */
import type { Env } from "../env";
import type { ModelEndpoint } from "./model-client";

/** GET /agent/api/models: the model each part of the agent uses (null when none is configured). */
export interface ModelNames {
	chat_model: string | null;
	agent_model: string | null;
	streaming_model: string | null;
	meeting_model: string | null;
}

export type AgentModel = { ok: true; endpoint: ModelEndpoint; names: ModelNames } | { ok: false; message: string; names: ModelNames };

export async function resolveAgentModel(_env: Env, _userId: number): Promise<AgentModel> {
	const names = { chat_model: null, agent_model: null, streaming_model: null, meeting_model: null };
	return { ok: false, message: "No model is configured: set one with PUT /user/models", names };
}
