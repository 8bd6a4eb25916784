import type { AccountObject } from "../durable-objects/account";
import type { IpGuard } from "../durable-objects/ip-guard";

/** Bindings and deployment settings. Every string var has an embedded default in wrangler.toml. */
export interface Env {
	DB: D1Database;
	RECORDINGS: R2Bucket;
	ACCOUNT: DurableObjectNamespace<AccountObject>;
	IP_GUARD: DurableObjectNamespace<IpGuard>;

	ADMIN_API_TOKEN?: string;
	/** base64 of 32 bytes: the AES-GCM key that seals secrets at rest. */
	SECRETS_KEY?: string;
	BOT_HOST_SECRET?: string;

	GATEWAY_RATE_LIMIT_RPS?: string;
	GATEWAY_RATE_LIMIT_BURST?: string;
	GUARD_ENABLED?: string;
	GUARD_RATE_LIMIT_RPM?: string;
	GUARD_BAN_SECONDS?: string;
	DEFAULT_MAX_CONCURRENT_BOTS?: string;
	MAX_BODY_BYTES?: string;
	OUTBOUND_ALLOW_PRIVATE?: string;

	// Deployment defaults that account settings override field by field.
	DEFAULT_MODEL_MODE?: string;
	DEFAULT_MODEL?: string;
	DEFAULT_MEETING_MODEL?: string;
	DEFAULT_MODEL_BASE_URL?: string;
	DEFAULT_MODEL_API_KEY?: string;
	TRANSCRIPTION_URL?: string;
	TRANSCRIPTION_TOKEN?: string;
	DEFAULT_WEBHOOK_URL?: string;
	DEFAULT_WEBHOOK_SECRET?: string;
}

export function intVar(value: string | undefined, fallback: number): number {
	const n = Number.parseInt(value ?? "", 10);
	return Number.isFinite(n) ? n : fallback;
}

export function numberVar(value: string | undefined, fallback: number): number {
	const n = Number.parseFloat(value ?? "");
	return Number.isFinite(n) ? n : fallback;
}

export function boolVar(value: string | undefined, fallback: boolean): boolean {
	if (value === undefined || value === "") return fallback;
	return ["1", "true", "yes", "on"].includes(value.toLowerCase());
}
