/**
 * A JSON-RPC batch on /mcp pays for each of its messages from the account's request bucket,
 * before any of them runs (security review finding 10: one POST of 100 tool calls used to cost
 * one token). The SDK still accepts batches for the protocol versions that had them.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../../src/app";
import type { Env } from "../../../src/env";
import { userWithKey } from "../support";
import { bearer, MCP_URL } from "./mcp-client";

/** A bucket that does not refill during a test: `burst` requests, then 429. */
const LIMITS = { GATEWAY_RATE_LIMIT_RPS: "0.001", GATEWAY_RATE_LIMIT_BURST: "10" };

async function post(key: string, body: unknown) {
	const ctx = createExecutionContext();
	const request = new Request(MCP_URL, {
		method: "POST",
		headers: { ...bearer(key), "content-type": "application/json", accept: "application/json, text/event-stream" },
		body: JSON.stringify(body),
	});
	const res = await app.fetch(request, { ...env, ...LIMITS } as Env, ctx);
	await waitOnExecutionContext(ctx);
	return res;
}

let nextId = 1;
const planCall = (title: string) => ({
	jsonrpc: "2.0",
	id: nextId++,
	method: "tools/call",
	params: { name: "plan_meeting", arguments: { title } },
});

async function plans(userId: number): Promise<string[]> {
	const { results } = await env.DB.prepare("SELECT json_extract(data, '$.title') AS title FROM meetings WHERE user_id = ? ORDER BY id")
		.bind(userId)
		.all<{ title: string }>();
	return results.map((r) => r.title);
}

describe("JSON-RPC batches on /mcp", () => {
	it("charge one request per message: a batch past what is left gets 429 with Retry-After and runs nothing", async () => {
		const { user, key } = await userWithKey();
		const first = await post(
			key,
			Array.from({ length: 8 }, (_, i) => planCall(`first ${i}`)),
		);
		expect(first.status).toBe(200);
		const answers = (await first.json()) as { id: number; result?: { isError?: boolean } }[];
		expect(answers).toHaveLength(8);
		expect(answers.every((a) => a.result && !a.result.isError)).toBe(true);
		expect(await plans(user.id)).toHaveLength(8);

		// Two tokens are left; a batch of three does not fit.
		const over = await post(
			key,
			Array.from({ length: 3 }, (_, i) => planCall(`over ${i}`)),
		);
		expect(over.status).toBe(429);
		expect(await over.json()).toEqual({ detail: "Rate limit exceeded" });
		expect(Number(over.headers.get("Retry-After"))).toBeGreaterThanOrEqual(1);
		expect(await plans(user.id)).toHaveLength(8);

		// A single call still fits.
		expect((await post(key, planCall("single"))).status).toBe(200);
		expect(await plans(user.id)).toHaveLength(9);
	});

	it("refuses a batch larger than the bucket's burst with 400 and a detail, and runs nothing", async () => {
		const { user, key } = await userWithKey();
		const res = await post(
			key,
			Array.from({ length: 11 }, (_, i) => planCall(`big ${i}`)),
		);
		expect(res.status).toBe(400);
		expect(await res.json()).toEqual({ detail: "A batch of 11 calls is more than the 10 this key may make at once; send smaller batches" });
		expect(await plans(user.id)).toEqual([]);
	});

	it("charges notifications in a batch too, and a batch of one as one request", async () => {
		const { user, key } = await userWithKey();
		const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
		for (let i = 0; i < 4; i++) expect((await post(key, [notification, notification])).status, `pair ${i}`).toBe(202);
		// 8 of 10 tokens spent: a batch of one fits twice, a third time does not.
		expect((await post(key, [planCall("one")])).status).toBe(200);
		expect((await post(key, [planCall("two")])).status).toBe(200);
		expect((await post(key, [planCall("three")])).status).toBe(429);
		expect(await plans(user.id)).toEqual(["one", "two"]);
	});
});
