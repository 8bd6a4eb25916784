import type { Env } from "../env";
import { ApiError } from "../errors";
import { ipGuard } from "../objects";
import { setting } from "../settings/deployment-defaults";

export interface Admission {
	allowed: boolean;
	retryAfterSeconds: number;
}

function tooManyRequests(retryAfterSeconds: number): ApiError {
	return new ApiError(429, "Rate limit exceeded", { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
}

/**
 * Anonymous reads under `/public/*` (shared transcripts, signed download and screenshot links):
 * a per-IP window of their own, PUBLIC_RATE_LIMIT_RPM, whether or not the general guard is on,
 * so a share link in many hands cannot make the Worker answer without end. 0 turns it off.
 */
export async function enforcePublicRate(env: Env, ip: string): Promise<void> {
	const rpm = setting(env, "PUBLIC_RATE_LIMIT_RPM");
	if (rpm <= 0) return;
	const admission = await ipGuard(env, `public:${ip}`).admit(rpm, setting(env, "GUARD_BAN_SECONDS"));
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}

/** The optional per-IP guard that runs before any key is looked at. */
export async function enforceIpGuard(env: Env, ip: string): Promise<void> {
	if (!setting(env, "GUARD_ENABLED")) return;
	const rpm = setting(env, "GUARD_RATE_LIMIT_RPM");
	const banSeconds = setting(env, "GUARD_BAN_SECONDS");
	const admission = await ipGuard(env, ip).admit(rpm, banSeconds);
	if (!admission.allowed) throw tooManyRequests(admission.retryAfterSeconds);
}
