/**
 * The requests a recording bot makes to its Worker (docs/bot-channel.md#recording-parts), over
 * the host's own HTTP as the WAV upload (audio.ts): the URLs come from the Worker's spawn, like
 * `recording_upload_url`. A network error or a 5xx is tried again with backoff, a few times: a
 * part that keeps failing is given up, never holding the bot in its meeting.
 */
import http from "node:http";
import https from "node:https";
import { setTimeout as sleep } from "node:timers/promises";

export interface PartRequest {
	method: "PUT" | "POST";
	url: string;
	headers: Record<string, string>;
	body: Buffer;
}

export interface RetryPolicy {
	attempts: number;
	/** The first wait; each next one doubles. */
	firstDelayMs: number;
	/** No attempt starts after this (epoch ms). */
	until?: number;
}

export const PART_RETRIES: RetryPolicy = { attempts: 4, firstDelayMs: 500 };

/** The answer's status, or the last error's words when every attempt failed on the network. */
export async function sendWithRetries(
	request: PartRequest,
	policy: RetryPolicy = PART_RETRIES,
): Promise<{ status: number } | { error: string }> {
	let last: { status: number } | { error: string } = { error: "not sent" };
	for (let attempt = 0; attempt < policy.attempts; attempt++) {
		if (attempt > 0) await sleep(policy.firstDelayMs * 2 ** (attempt - 1));
		if (Date.now() >= (policy.until ?? Number.POSITIVE_INFINITY)) break;
		last = await send(request).then(
			(status) => ({ status }),
			(err: unknown) => ({ error: err instanceof Error ? err.message : String(err) }),
		);
		if ("status" in last && last.status < 500) return last;
	}
	return last;
}

function send(request: PartRequest): Promise<number> {
	const target = new URL(request.url);
	const client = target.protocol === "https:" ? https : http;
	return new Promise<number>((resolve, reject) => {
		const req = client.request(target, {
			method: request.method,
			headers: { ...request.headers, "content-length": String(request.body.length) },
		});
		// A part is at most a few megabytes: half a minute without progress is a dead connection.
		req.setTimeout(30_000, () => req.destroy(new Error("recording part request stalled")));
		req.once("response", (res) => {
			res.resume();
			resolve(res.statusCode ?? 0);
		});
		req.once("error", reject);
		req.end(request.body);
	});
}
