import type { Env } from "../env";
import { ApiError } from "../errors";
import { setting } from "../settings/deployment-defaults";

export interface Admission {
	allowed: boolean;
	retryAfterSeconds: number;
}

function tooManyRequests(retryAfterSeconds: number): ApiError {
	return new ApiError(429, "Rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

/** The optional per-IP guard that runs before any key is looked at. */
export async function enforceIpGuard(env: Env, ip: string): Promise<void> {
	if (!setting(env, "GUARD_ENABLED")) return;
	const rpm = setting(env, "GUARD_RATE_LIMIT_RPM");
	const banSeconds = setting(env, "GUARD_BAN_SECONDS");
	const admission = await env.IP_GUARD.get(env.IP_GUARD.idFromName(ip)).admit(rpm, banSeconds);
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}
