import { env } from "cloudflare:test";
import { expect } from "vitest";
import type { z } from "zod";
import { Workload } from "../../../src/routes/agent-schemas";
import type { ModelStepScript, RecordedModelRequest } from "../../receiver/model-script";
import { eventually } from "../../shared/wait";
import { call, expectDocumented, userWithKey } from "../support";

/** The account's own model key: tests prove it reaches the model server and never a client. */
export const MODEL_KEY = "sk-account-agent-key-0123456789abcdef";
export const MODEL_NAME = "agent-test-model";

/** A user whose /user/models points at the scripted model server. */
export async function agentUser() {
	const u = await userWithKey();
	const res = await call("PUT", "/user/models", {
		headers: u.headers,
		json: { base_url: `${env.MODEL_SERVER_URL}/v1`, api_key: MODEL_KEY, model: MODEL_NAME },
	});
	expect(res.status).toBe(200);
	await res.body?.cancel();
	return u;
}

export async function script(marker: string, steps: ModelStepScript[]): Promise<void> {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__script`, { method: "POST", body: JSON.stringify({ marker, steps }) });
	expect(res.status).toBe(200);
	await res.body?.cancel();
}

/** What the model server was sent for prompts carrying the marker. */
export async function sent(marker: string): Promise<RecordedModelRequest[]> {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__requests?marker=${encodeURIComponent(marker)}`);
	return ((await res.json()) as { requests: RecordedModelRequest[] }).requests;
}

export interface SentBody {
	model: string;
	stream: boolean;
	messages: { role: string; content: string | null; tool_call_id?: string; tool_calls?: { id: string; function: { name: string } }[] }[];
	tools?: { type: string; function: { name: string } }[];
}

export const bodyOf = (request: RecordedModelRequest | undefined) => request?.body as SentBody;

export function chat(headers: Record<string, string>, body: Record<string, unknown>, extra: Record<string, string> = {}) {
	return call("POST", "/agent/api/chat", { headers: { ...headers, ...extra }, json: body });
}

/** The workload once it has ended (it runs on in the object after the 202). */
export async function endedWorkload(path: string, headers: Record<string, string>): Promise<z.infer<typeof Workload>> {
	return eventually(`${path} to end`, async () => {
		const workload = await expectDocumented(Workload, await call("GET", path, { headers }), 200);
		return workload.status === "completed" || workload.status === "failed" ? workload : undefined;
	});
}
