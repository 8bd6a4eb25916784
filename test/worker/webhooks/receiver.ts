import { env } from "cloudflare:test";

/** Client of the local webhook receiver (test/receiver/webhook-receiver.ts). */
export interface ReceivedRequest {
	method: string;
	path: string;
	query: string;
	headers: Record<string, string | string[] | undefined>;
	body: string;
	received_at: number;
}

export interface ScriptedAnswer {
	status: number;
	delay_ms?: number;
	body?: string;
	/** Extra response headers, e.g. a redirect's Location. */
	headers?: Record<string, string>;
	/** Only for a request whose body contains this text (see test/receiver/webhook-receiver.ts). */
	match?: string;
}

/** A fresh path on the receiver, so this test sees only its own traffic. */
export function newHook(): { path: string; url: string } {
	const path = `/hooks/${crypto.randomUUID()}`;
	return { path, url: `${env.WEBHOOK_RECEIVER_URL}${path}` };
}

export async function script(path: string, responses: ScriptedAnswer[]): Promise<void> {
	const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/script?path=${encodeURIComponent(path)}`, {
		method: "POST",
		body: JSON.stringify({ responses }),
	});
	if (!res.ok) throw new Error(`receiver script: ${res.status}`);
}

export async function received(path: string): Promise<ReceivedRequest[]> {
	const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/requests?path=${encodeURIComponent(path)}`);
	return ((await res.json()) as { requests: ReceivedRequest[] }).requests;
}

/** From now on, answers every request to `path` with `body` (after any scripted answers). */
export async function serve(path: string, body: BodyInit, contentType = "application/octet-stream"): Promise<void> {
	const res = await fetch(`${env.WEBHOOK_RECEIVER_URL}/__control/serve?path=${encodeURIComponent(path)}`, {
		method: "POST",
		headers: { "x-serve-content-type": contentType },
		body,
	});
	if (!res.ok) throw new Error(`receiver serve: ${res.status}`);
}
