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
