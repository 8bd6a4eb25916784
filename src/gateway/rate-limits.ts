import type { Env } from "../env";
import { boolVar, intVar, numberVar } from "../env";
import { ApiError } from "../errors";

export interface Admission {
	allowed: boolean;
	retryAfterSeconds: number;
}

function tooManyRequests(retryAfterSeconds: number): ApiError {
	return new ApiError(429, "Rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

/** The per-user token bucket, held by the user's Account object so it is exact under concurrency. */
export async function enforceUserBucket(env: Env, userId: number): Promise<void> {
	const rps = numberVar(env.GATEWAY_RATE_LIMIT_RPS, 20);
	const burst = numberVar(env.GATEWAY_RATE_LIMIT_BURST, 40);
	if (rps <= 0) return;
	let admission: Admission;
	try {
		admission = await env.ACCOUNT.get(env.ACCOUNT.idFromName(String(userId))).takeRequestToken(rps, burst);
	} catch (err) {
		// The limiter protects capacity; it must not take the API down with it.
		console.warn("rate limiter unavailable", err instanceof Error ? err.name : "error");
		return;
	}
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}

/** The optional per-IP guard that runs before any key is looked at. */
export async function enforceIpGuard(env: Env, ip: string): Promise<void> {
	if (!boolVar(env.GUARD_ENABLED, false)) return;
	const rpm = intVar(env.GUARD_RATE_LIMIT_RPM, 600);
	const banSeconds = intVar(env.GUARD_BAN_SECONDS, 600);
	const admission = await env.IP_GUARD.get(env.IP_GUARD.idFromName(ip)).admit(rpm, banSeconds);
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}
