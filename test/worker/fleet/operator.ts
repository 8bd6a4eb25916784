import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";

/** The operator's token for these tests: the test config sets none, so each call sets it. */
export const METRICS_TOKEN = "fleet-metrics-token-0123456789";

/** Calls the Worker with a modified deployment environment (the metrics token is not in the test config). */
export async function callWith(
	overrides: Partial<Env>,
	method: string,
	path: string,
	init: { headers?: Record<string, string>; json?: unknown } = {},
) {
	const headers = new Headers(init.headers);
	if (init.json !== undefined) headers.set("content-type", "application/json");
	const ctx = createExecutionContext();
	const res = await worker.fetch(
		new Request(`https://gateway.test${path}`, { method, headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) }),
		{ ...env, ...overrides } as Env,
		ctx,
	);
	await waitOnExecutionContext(ctx);
	return res;
}

/** An operator's GET with the metrics token configured and presented. */
export const operatorGet = (path: string, overrides: Partial<Env> = {}) =>
	callWith({ FLEET_METRICS_TOKEN: METRICS_TOKEN, ...overrides }, "GET", path, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } });
