import type { Env } from "../env";
import { boolVar, intVar } from "../env";
import { ApiError } from "../errors";

export interface Admission {
	allowed: boolean;
	retryAfterSeconds: number;
}

function tooManyRequests(retryAfterSeconds: number): ApiError {
	return new ApiError(429, "Rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

/** The optional per-IP guard that runs before any key is looked at. */
export async function enforceIpGuard(env: Env, ip: string): Promise<void> {
	if (!boolVar(env.GUARD_ENABLED, false)) return;
	const rpm = intVar(env.GUARD_RATE_LIMIT_RPM, 600);
	const banSeconds = intVar(env.GUARD_BAN_SECONDS, 600);
	const admission = await env.IP_GUARD.get(env.IP_GUARD.idFromName(ip)).admit(rpm, banSeconds);
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}
