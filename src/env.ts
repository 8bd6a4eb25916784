/**
 * The Durable Object class behind each namespace binding, filled in by the Worker's entry
 * (src/index.ts, which exports the classes to the runtime) through declaration merging. So nothing
 * under src/ imports a class from durable-objects/, the layer above it: the binding names are
 * declared here, and the classes where wrangler binds them (docs/architecture.md#the-object-bindings).
 * A binding without its class fails to compile.
 */
// biome-ignore lint/suspicious/noEmptyInterface: declaration merging in src/index.ts gives it its members.
export interface DurableObjectClasses {}

/**
 * Bindings and deployment settings. Non-secret settings have their defaults in one table,
 * `DEPLOYMENT_DEFAULTS` (settings/deployment-defaults.ts), read through `setting(env, name)`.
 */
export interface Env {
	DB: D1Database;
	RECORDINGS: R2Bucket;
	ACCOUNT: DurableObjectNamespace<DurableObjectClasses["ACCOUNT"]>;
	IP_GUARD: DurableObjectNamespace<DurableObjectClasses["IP_GUARD"]>;
	MEETING_ROOM: DurableObjectNamespace<DurableObjectClasses["MEETING_ROOM"]>;
	MEETING_STREAM: DurableObjectNamespace<DurableObjectClasses["MEETING_STREAM"]>;
	LIVE_FEED: DurableObjectNamespace<DurableObjectClasses["LIVE_FEED"]>;
	AGENT_USER: DurableObjectNamespace<DurableObjectClasses["AGENT_USER"]>;
	WORKSPACE: DurableObjectNamespace<DurableObjectClasses["WORKSPACE"]>;
	/** One search partition per scope: a workspace, or a user's meetings bound to none (docs/api.md#search). */
	TRANSCRIPT_INDEX: DurableObjectNamespace<DurableObjectClasses["TRANSCRIPT_INDEX"]>;
	/** Workspace uploads (up to 25 MB each): listed in a workspace's tree, kept out of its git objects. */
	WORKSPACE_FILES: R2Bucket;

	ADMIN_API_TOKEN?: string;
	/** base64 of 32 bytes: the AES-GCM key that seals secrets at rest. */
	SECRETS_KEY?: string;
	/** The spawn queue (Cloudflare Queues); hosts pull it over the HTTP API (docs/bot-fleet.md). */
	BOT_SPAWNS?: Queue<unknown>;
	/**
	 * A queue's REST base (`…/accounts/<account>/queues/<queue id>`): when set, tickets are
	 * published over the HTTP API instead of the binding (locally, to scripts/local-queue.mjs,
	 * since wrangler dev has no pull consumers). SPAWN_QUEUE_TOKEN is its Bearer token.
	 */
	SPAWN_QUEUE_URL?: string;
	SPAWN_QUEUE_TOKEN?: string;
	/** How long a spawn ticket waits for a host's claim before the meeting fails (`data.failure_cause: no_bot_capacity`, default 180). */
	BOT_PLACEMENT_TIMEOUT_S?: string;
	/** How long a bot may sit in `needs_help` before the meeting fails `help_timeout`. */
	BOT_HELP_TIMEOUT_S?: string;
	/** Lifetime of a screenshot link (data.help / data.diagnostics `screenshot_url`). */
	SCREENSHOT_LINK_TTL_S?: string;
	SCREENSHOT_RETENTION_DAYS?: string;
	RETENTION_DAYS?: string;
	BOT_PLACEMENT_REFRESH_S?: string;
	/** Respawns on another host after a host is lost mid-meeting (default 0: the meeting fails, `data.failure_cause: bot_host_lost`). */
	BOT_MAX_RESPAWNS?: string;
	/** Bearer token an autoscaler presents at GET /internal/fleet/metrics. */
	FLEET_METRICS_TOKEN?: string;
	/** How far ahead auto-join plans count as bots needed soon, in seconds (default 600). */
	FLEET_DUE_WINDOW_S?: string;
	/** How long a spawned bot has to report before the watchdog ends the meeting. */
	BOT_REPORT_TIMEOUT_S?: string;
	/** How long a bot's channel may stay closed before the meeting is torn down. */
	BOT_RECONNECT_GRACE_S?: string;
	/** How often the room checks that its bot's channel is there, and how long a pinging bot may go silent. */
	BOT_LEASE_S?: string;
	/** How long a stopping bot has to confirm before the stop is recorded anyway. */
	BOT_STOP_GRACE_S?: string;
	TRANSCRIPT_SHARE_TTL_S?: string;
	/** Lifetime of a `/ws` ticket from POST /auth/ticket (default 60). */
	AUTH_TICKET_TTL_S?: string;
	/** The largest recording upload, WAV header included (default 1 GiB); bots are told it and stop recording before it. */
	MAX_RECORDING_BYTES?: string;
	/** How long after its meeting ended a bot may still upload its recording, in seconds (default 300). */
	RECORDING_UPLOAD_GRACE_S?: string;
	/** `espeak` (on the bot host) or `openai` (an OpenAI-compatible /v1/audio/speech endpoint). */
	DEFAULT_SPEECH_PROVIDER?: string;
	TTS_MODEL?: string;
	/** The gateway origin bots connect to (required to launch bots); links shown to clients use it too, else the request origin. */
	PUBLIC_BASE_URL?: string;

	/** "false" leaves calendar sync unwired: the sync routes answer 503 and nothing syncs in the background. */
	CALENDAR_SYNC_ENABLED?: string;
	/** Seconds between background syncs of one calendar connection (default 300). */
	CALENDAR_SYNC_INTERVAL_S?: string;
	/** Largest ICS feed read, in bytes (default 10 MB), and how long a fetch may take. */
	CALENDAR_FEED_MAX_BYTES?: string;
	CALENDAR_FEED_TIMEOUT_S?: string;
	/** Upcoming or recurring events imported from one feed (default 5000); the rest are left out with a warning. */
	CALENDAR_FEED_MAX_EVENTS?: string;
	/**
	 * What one import of a feed may cost: instances all its series together may work out (default
	 * 20000), and milliseconds the import may take, its parse included (default 10000). Past either,
	 * what was read is imported, the rest left as it was, and `last_error` says so.
	 */
	CALENDAR_FEED_MAX_INSTANCES?: string;
	CALENDAR_IMPORT_BUDGET_MS?: string;
	/** How far ahead single events are imported, in days (default 90); series always give their next occurrence. */
	CALENDAR_IMPORT_HORIZON_DAYS?: string;
	/** Imported plans arm auto-join in their room once they start within this many seconds (default 86400). */
	CALENDAR_ARM_AHEAD_S?: string;
	/** The deployment's OAuth clients for calendars you sign into (secrets); a provider without both is not offered. */
	GOOGLE_CLIENT_ID?: string;
	GOOGLE_CLIENT_SECRET?: string;
	MICROSOFT_CLIENT_ID?: string;
	MICROSOFT_CLIENT_SECRET?: string;
	/** The providers' addresses (defaults: the real hosts) and the Microsoft tenant (default `common`). */
	GOOGLE_ACCOUNTS_BASE_URL?: string;
	GOOGLE_OAUTH_BASE_URL?: string;
	GOOGLE_API_BASE_URL?: string;
	MICROSOFT_LOGIN_BASE_URL?: string;
	MICROSOFT_TENANT?: string;
	GRAPH_BASE_URL?: string;
	/** S3-compatible access to the recordings bucket; when all are set, downloads are presigned R2 URLs. */
	R2_S3_ENDPOINT?: string;
	R2_ACCESS_KEY_ID?: string;
	R2_SECRET_ACCESS_KEY?: string;
	R2_BUCKET?: string;
	R2_REGION?: string;
	/** Lifetime of a recording download link, in seconds (default 900). */
	RECORDING_DOWNLOAD_TTL_S?: string;
	/** Open `/ws` connections per user (default 20); the next upgrade is refused in-band until one closes. */
	LIVE_FEED_MAX_SOCKETS?: string;
	/**
	 * What one `swap` clone may cost (defaults in durable-objects/workspace/clone-limits.ts): bytes read from
	 * the host, bytes its objects unpack to (and its checkout takes), one object's unpacked bytes,
	 * objects in its pack, files and directories checked out, and seconds in all.
	 */
	WORKSPACE_CLONE_MAX_DOWNLOAD_BYTES?: string;
	WORKSPACE_CLONE_MAX_UNPACKED_BYTES?: string;
	WORKSPACE_CLONE_MAX_FILE_BYTES?: string;
	WORKSPACE_CLONE_MAX_OBJECTS?: string;
	WORKSPACE_CLONE_MAX_FILES?: string;
	WORKSPACE_CLONE_TIMEOUT_S?: string;
	/** How often a quiet agent chat stream gets a keepalive comment, in milliseconds (default 15000). */
	AGENT_SSE_KEEPALIVE_MS?: string;
	/**
	 * A completed meeting's summary (docs/api.md#summaries): the model call's time limit in seconds
	 * (default 60; `meeting.completed` waits for it), and the transcript characters sent (default 60000).
	 */
	SUMMARY_TIMEOUT_S?: string;
	SUMMARY_MAX_TRANSCRIPT_CHARS?: string;
	/** How long one search may take before it answers 503 with Retry-After (default 2000). */
	SEARCH_TIME_BUDGET_MS?: string;
	/** Routines one user may have (default 50), and the fewest minutes between two runs of one (default 5, at most 60). */
	MAX_ROUTINES_PER_USER?: string;
	/** Unexpired API keys one user may hold; self-service minting past it gets 409 (default 50). */
	MAX_API_KEYS_PER_USER?: string;
	ROUTINE_MIN_INTERVAL_MINUTES?: string;
	/** Workspace uploads one user may keep: bytes (default 500 MiB) and files (default 1000). */
	WORKSPACE_UPLOAD_QUOTA_BYTES?: string;
	WORKSPACE_UPLOAD_QUOTA_FILES?: string;

	GATEWAY_RATE_LIMIT_RPS?: string;
	GATEWAY_RATE_LIMIT_BURST?: string;
	GUARD_ENABLED?: string;
	PUBLIC_RATE_LIMIT_RPM?: string;
	GUARD_RATE_LIMIT_RPM?: string;
	GUARD_BAN_SECONDS?: string;
	/** The request header the per-IP guard reads the caller's address from (default CF-Connecting-IP); set only behind a proxy that overwrites it. */
	CLIENT_IP_HEADER?: string;
	DEFAULT_MAX_CONCURRENT_BOTS?: string;
	MAX_BODY_BYTES?: string;
	/** The body cap of POST …/speak and PUT …/avatar, which carry audio and images as base64. */
	MAX_MEDIA_BODY_BYTES?: string;
	OUTBOUND_ALLOW_PRIVATE?: string;

	// Deployment defaults that account settings override. A credential goes only with its own
	// URL (settings/account-settings.ts `resolveSettings`): an account with its own URL never gets it.
	DEFAULT_MODEL_MODE?: string;
	DEFAULT_MODEL?: string;
	DEFAULT_MEETING_MODEL?: string;
	DEFAULT_MODEL_BASE_URL?: string;
	DEFAULT_MODEL_API_KEY?: string;
	TRANSCRIPTION_URL?: string;
	TRANSCRIPTION_RELAY_DAILY_SECONDS?: string;
	TRANSCRIPTION_RELAY_AUDIO_RATIO?: string;
	TRANSCRIPTION_TOKEN?: string;
	/** The deployment's transcription engine (src/shapes/transcription.ts); unset: openai with TRANSCRIPTION_URL, else captions. */
	TRANSCRIPTION_ENGINE?: string;
	/** The streaming providers' keys, for accounts that bring none (docs/api.md#transcription-engines). */
	DEEPGRAM_API_KEY?: string;
	ASSEMBLYAI_API_KEY?: string;
	/** Where the streaming providers answer; tests point them at local servers. */
	DEEPGRAM_URL?: string;
	ASSEMBLYAI_URL?: string;
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

/**
 * The gateway address in links shown to the client (raw_url, share links): the configured one,
 * else the request's origin. Never for anything a bot uses (see bots/bot-endpoints.ts).
 */
export function publicBaseUrl(env: Pick<Env, "PUBLIC_BASE_URL">, request: Request): string {
	return env.PUBLIC_BASE_URL || new URL(request.url).origin;
}
