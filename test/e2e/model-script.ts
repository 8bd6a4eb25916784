import { expect, inject } from "vitest";

/** The users' model in e2e runs: the scripted OpenAI-compatible server (test/receiver/model-server.ts). */
export const modelServer = () => inject("modelServerUrl");

/** Queues steps for requests whose last user message contains `marker`. */
export async function script(marker: string, steps: unknown[]): Promise<void> {
	const res = await fetch(`${modelServer()}/__script`, {
		method: "POST",
		headers: { "content-type": "application/json" },
		body: JSON.stringify({ marker, steps }),
	});
	expect(res.ok).toBe(true);
}

export interface ModelRequest {
	body: { model: string; messages: { role: string; content: string }[] };
}

/** The requests the model server received whose last user message contains `marker`. */
export async function modelRequests(marker: string): Promise<ModelRequest[]> {
	const res = await fetch(`${modelServer()}/__requests?marker=${encodeURIComponent(marker)}`);
	return ((await res.json()) as { requests: ModelRequest[] }).requests;
}
