import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { systemClock } from "../clock";
import { ApiError, notFound } from "../errors";
import { secretsEqual } from "./api-keys";
import { authenticate } from "./identity";
import { enforceIpGuard } from "./rate-limits";
import { lookupAccess } from "./route-scopes";

const clientIp = (req: Request) => req.headers.get("cf-connecting-ip") ?? req.headers.get("x-real-ip") ?? "local";

/**
 * Every request passes here first: per-IP guard, the route table, then admin token or API
 * key, scope, per-user bucket. Identity goes downstream on the context and as `X-User-Id`;
 * whatever `X-User-Id` the client sent is dropped before anything reads it.
 */
export const gateway = createMiddleware<AppEnv>(async (c, next) => {
	c.set("clock", systemClock);
	const incoming = new Headers(c.req.raw.headers);
	incoming.delete("x-user-id");
	// An empty body sent with a JSON content type (curl -H ... -X POST) is no body, not bad JSON.
	if (incoming.get("content-length") === "0") incoming.delete("content-type");

	await enforceIpGuard(c.env, clientIp(c.req.raw));

	const access = lookupAccess(c.req.method, c.req.path);
	if (!access) throw notFound();

	if (access.kind === "admin") {
		const presented = c.req.header("x-admin-api-key") ?? "";
		const expected = c.env.ADMIN_API_TOKEN ?? "";
		if (!expected || !(await secretsEqual(presented, expected))) throw new ApiError(403, "Invalid or missing admin token.");
	} else if (access.kind === "key") {
		const identity = await authenticate(c.env, c.req.header("x-api-key"), access.scopes);
		c.set("identity", identity);
		incoming.set("X-User-Id", String(identity.userId));
	}

	c.req.raw = new Request(c.req.raw, { headers: incoming });
	await next();
});
