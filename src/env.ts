import type { AccountObject } from "../durable-objects/account";
import type { IpGuard } from "../durable-objects/ip-guard";
import type { LiveFeed } from "../durable-objects/live-feed";
import type { MeetingRoom } from "../durable-objects/meeting-room";

/** Bindings and deployment settings. Every string var has an embedded default in wrangler.toml. */
export interface Env {
	DB: D1Database;
	RECORDINGS: R2Bucket;
	ACCOUNT: DurableObjectNamespace<AccountObject>;
	IP_GUARD: DurableObjectNamespace<IpGuard>;
	MEETING_ROOM: DurableObjectNamespace<MeetingRoom>;
	LIVE_FEED: DurableObjectNamespace<LiveFeed>;

	ADMIN_API_TOKEN?: string;
	/** base64 of 32 bytes: the AES-GCM key that seals secrets at rest. */
	SECRETS_KEY?: string;
	BOT_HOST_SECRET?: string;
	/** Where bots are spawned (the bot host service). */
	BOT_HOST_URL?: string;
	/** How long a spawned bot has to report before the watchdog ends the meeting. */
	BOT_REPORT_TIMEOUT_S?: string;
	/** How long a bot's channel may stay closed before the meeting is torn down. */
	BOT_RECONNECT_GRACE_S?: string;
	/** How long a stopping bot has to confirm before the stop is recorded anyway. */
	BOT_STOP_GRACE_S?: string;
	TRANSCRIPT_SHARE_TTL_S?: string;
	MAX_RECORDING_BYTES?: string;
	/** The gateway address bots and share links use; defaults to the request origin. */
	PUBLIC_BASE_URL?: string;

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
