import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../app-env";
import { systemClock } from "../clock";
import { ApiError, notFound } from "../errors";
import { setting } from "../settings/deployment-defaults";
import { secretsEqual } from "./api-keys";
import { authenticate } from "./identity";
import { presentedKey } from "./presented-key";
import { enforceIpGuard, enforcePublicRate } from "./rate-limits";
import { lookupAccess } from "./route-scopes";

/**
 * The workspace's git export (`…/workspace/repo.git/…`), where the git CLI is the client: it
 * sends a key as HTTP Basic (`https://x:<key>@host/…`), and only after a 401 that asks for it.
 */
const GIT_EXPORT = /^\/agent(?:\/api)?\/workspace\/repo\.git\//;
const isGitExport = (path: string) => GIT_EXPORT.test(path);

/** The password of an HTTP Basic header (the key); the user name is not read. */
function basicPassword(header: string | undefined): string | undefined {
	const match = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)\s*$/i);
	if (!match?.[1]) return undefined;
	let decoded: string;
	try {
		decoded = atob(match[1]);
	} catch {
		return undefined;
	}
	const colon = decoded.indexOf(":");
	return colon < 0 ? undefined : decoded.slice(colon + 1) || undefined;
}

async function authenticateGit(
	env: AppEnv["Bindings"],
	key: string | undefined,
	scopes: Parameters<typeof authenticate>[2],
	route: string,
) {
	try {
		return await authenticate(env, key, scopes, route);
	} catch (err) {
		// A 401 without a challenge makes git give up instead of sending the credentials it has.
		if (err instanceof ApiError && err.status === 401) {
			throw new ApiError(401, err.detail, { ...err.headers, "WWW-Authenticate": 'Basic realm="workspace"' });
		}
		throw err;
	}
}

/**
 * The caller's address for the per-IP guard: the one header the deployment trusts to carry it.
 * Cloudflare sets `CF-Connecting-IP` and clients cannot; off Cloudflare every header is the
 * client's own, so another one (`X-Real-IP`) counts only when CLIENT_IP_HEADER names it,
 * because a proxy in front overwrites it.
 */
function clientIp(env: AppEnv["Bindings"], req: Request): string {
	const header = setting(env, "CLIENT_IP_HEADER");
	return req.headers.get(header)?.trim() || "local";
}

/**
 * Every answer of the API, errors included, says its type is what it declares: a browser must
 * not sniff a JSON or plain-text body (a shared transcript) into something it would run.
 */
export const apiResponseHeaders = createMiddleware<AppEnv>(async (c, next) => {
	await next();
	// A WebSocket upgrade carries no body to sniff.
	if (c.res.status === 101) return;
	try {
		c.res.headers.set("X-Content-Type-Options", "nosniff");
	} catch {
		// Headers of a response passed through from a fetch are immutable: answer with a copy.
		c.res = new Response(c.res.body, c.res);
		c.res.headers.set("X-Content-Type-Options", "nosniff");
	}
});

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

	await enforceIpGuard(c.env, clientIp(c.env, c.req.raw));

	const access = lookupAccess(c.req.method, c.req.path);
	if (!access) throw notFound();
	if (access.kind === "public" && c.req.path.startsWith("/public/")) await enforcePublicRate(c.env, clientIp(c.env, c.req.raw));

	if (access.kind === "admin") {
		const presented = c.req.header("x-admin-api-key") ?? "";
		const expected = c.env.ADMIN_API_TOKEN ?? "";
		if (!expected || !(await secretsEqual(presented, expected))) throw new ApiError(403, "Invalid or missing admin token.");
	} else if (access.kind === "key") {
		const route = `${c.req.method} ${c.req.path}`;
		const identity = isGitExport(c.req.path)
			? await authenticateGit(c.env, c.req.header("x-api-key") ?? basicPassword(c.req.header("authorization")), access.scopes, route)
			: await authenticate(c.env, presentedKey(c.req.raw.headers), access.scopes, route);
		c.set("identity", identity);
		incoming.set("X-User-Id", String(identity.userId));
	}

	c.req.raw = new Request(c.req.raw, { headers: incoming });
	await next();
});
