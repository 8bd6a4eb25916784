import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { ClaimRequest } from "../bot-channel/fleet";
import { ApiError, zodFieldErrors } from "../errors";
import { meetingRoom } from "../objects";

/**
 * The bot fleet's internal routes (docs/bot-fleet.md): hosts claim spawn tickets and report what
 * they run (Bearer BOT_HOST_SECRET); an autoscaler reads the fleet's metrics (Bearer
 * FLEET_METRICS_TOKEN). Each route checks its own credential.
 */
export const botFleetRoutes = new Hono<AppEnv>();

const encoder = new TextEncoder();

/** Compares digests, so the time taken says nothing about the secret (not even its length). */
async function sameSecret(presented: string, expected: string): Promise<boolean> {
	const [a, b] = await Promise.all([presented, expected].map((s) => crypto.subtle.digest("SHA-256", encoder.encode(s))));
	return crypto.subtle.timingSafeEqual(a as ArrayBuffer, b as ArrayBuffer);
}

/** 503 when the deployment has no secret (no host can be trusted), 401 for a missing or wrong one. */
export async function requireBearer(authorization: string | undefined, expected: string | undefined, name: string): Promise<void> {
	if (!expected) throw new ApiError(503, `${name} is not configured`);
	const presented = authorization?.match(/^Bearer\s+(.+)$/i)?.[1]?.trim();
	if (!presented || !(await sameSecret(presented, expected))) throw new ApiError(401, "Invalid or missing bearer token");
}

/** A host claims one attempt of a meeting: the first claimer gets the spawn request, anyone else 409. */
botFleetRoutes.post("/internal/bot-hosts/claims", async (c) => {
	await requireBearer(c.req.header("authorization"), c.env.BOT_HOST_SECRET, "BOT_HOST_SECRET");
	let body: unknown;
	try {
		body = await c.req.json();
	} catch {
		throw new ApiError(422, [{ loc: ["body"], msg: "a JSON body is required", type: "json_invalid" }]);
	}
	const parsed = ClaimRequest.safeParse(body);
	if (!parsed.success) throw new ApiError(422, zodFieldErrors(parsed.error, "body"));
	const outcome = await meetingRoom(c.env, parsed.data.meeting_id).claim(parsed.data);
	if (!outcome.ok) return c.json({ detail: outcome.detail, reason: outcome.reason }, 409);
	return c.json(outcome.spawn, 200);
});
