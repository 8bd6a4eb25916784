import { RECORDING_MAX_BYTES } from "../bot-channel/protocol";
import { boolVar, type Env, intVar, numberVar } from "../env";

const MiB = 1024 * 1024;

/**
 * Every non-secret deployment setting and its default: the one place a default is written.
 * wrangler.toml [vars] and the README's settings table must say the same
 * (test/unit/docs/settings-drift.test.ts); code reads a setting only through `setting`.
 */
export const DEPLOYMENT_DEFAULTS = {
	GATEWAY_RATE_LIMIT_RPS: 20,
	GATEWAY_RATE_LIMIT_BURST: 40,
	GUARD_ENABLED: false,
	GUARD_RATE_LIMIT_RPM: 600,
	GUARD_BAN_SECONDS: 600,
	PUBLIC_RATE_LIMIT_RPM: 300,
	CLIENT_IP_HEADER: "CF-Connecting-IP",
	LIVE_FEED_MAX_SOCKETS: 20,
	DEFAULT_MAX_CONCURRENT_BOTS: 3,
	MAX_BODY_BYTES: 1_048_576,
	MAX_MEDIA_BODY_BYTES: 16 * MiB,
	/** Read by src/outbound/url-guard.ts itself: the bot host shares that module, not this table. */
	OUTBOUND_ALLOW_PRIVATE: false,
	BOT_PLACEMENT_TIMEOUT_S: 180,
	BOT_PLACEMENT_REFRESH_S: 10,
	BOT_MAX_RESPAWNS: 0,
	BOT_REPORT_TIMEOUT_S: 60,
	BOT_RECONNECT_GRACE_S: 30,
	BOT_LEASE_S: 20,
	BOT_STOP_GRACE_S: 20,
	BOT_HELP_TIMEOUT_S: 300,
	SCREENSHOT_LINK_TTL_S: 300,
	SCREENSHOT_RETENTION_DAYS: 30,
	/** An ended meeting's media, screenshots, diagnostics, search rows and stream log are kept this many days; 0 keeps them until deleted (docs/retention.md). */
	RETENTION_DAYS: 0,
	FLEET_DUE_WINDOW_S: 600,
	TRANSCRIPT_SHARE_TTL_S: 900,
	/** The upload limit the bots are told; the protocol holds it because the bot host defaults its cap to it. */
	MAX_RECORDING_BYTES: RECORDING_MAX_BYTES,
	RECORDING_UPLOAD_GRACE_S: 300,
	RECORDING_DOWNLOAD_TTL_S: 900,
	AUTH_TICKET_TTL_S: 60,
	CALENDAR_SYNC_ENABLED: true,
	CALENDAR_SYNC_INTERVAL_S: 300,
	CALENDAR_FEED_MAX_BYTES: 10 * MiB,
	CALENDAR_FEED_TIMEOUT_S: 20,
	CALENDAR_FEED_MAX_EVENTS: 5000,
	CALENDAR_FEED_MAX_INSTANCES: 20_000,
	CALENDAR_IMPORT_BUDGET_MS: 10_000,
	CALENDAR_IMPORT_HORIZON_DAYS: 90,
	CALENDAR_ARM_AHEAD_S: 86_400,
	/** Where the calendar providers you sign into answer (docs/api.md#calendars-you-sign-into); tests point them at local servers. */
	GOOGLE_ACCOUNTS_BASE_URL: "https://accounts.google.com",
	GOOGLE_OAUTH_BASE_URL: "https://oauth2.googleapis.com",
	GOOGLE_API_BASE_URL: "https://www.googleapis.com",
	MICROSOFT_LOGIN_BASE_URL: "https://login.microsoftonline.com",
	MICROSOFT_TENANT: "common",
	GRAPH_BASE_URL: "https://graph.microsoft.com",
	WORKSPACE_CLONE_MAX_DOWNLOAD_BYTES: 30 * MiB,
	WORKSPACE_CLONE_MAX_UNPACKED_BYTES: 100 * MiB,
	WORKSPACE_CLONE_MAX_FILE_BYTES: 25 * MiB,
	WORKSPACE_CLONE_MAX_OBJECTS: 20_000,
	WORKSPACE_CLONE_MAX_FILES: 10_000,
	WORKSPACE_CLONE_TIMEOUT_S: 60,
	WORKSPACE_UPLOAD_QUOTA_BYTES: 500 * MiB,
	WORKSPACE_UPLOAD_QUOTA_FILES: 1000,
	MAX_ROUTINES_PER_USER: 50,
	MAX_API_KEYS_PER_USER: 50,
	ROUTINE_MIN_INTERVAL_MINUTES: 5,
	DEFAULT_SPEECH_PROVIDER: "espeak",
	TTS_MODEL: "tts-1",
	AGENT_SSE_KEEPALIVE_MS: 15_000,
	SUMMARY_TIMEOUT_S: 60,
	SUMMARY_MAX_TRANSCRIPT_CHARS: 60_000,
	TRANSCRIPTION_RELAY_DAILY_SECONDS: 864_000,
	TRANSCRIPTION_RELAY_AUDIO_RATIO: 10,
	/** Where the streaming providers answer (docs/api.md#transcription-engines); the relay adds the path. */
	DEEPGRAM_URL: "wss://api.deepgram.com",
	ASSEMBLYAI_URL: "wss://streaming.assemblyai.com",
	SEARCH_TIME_BUDGET_MS: 2_000,
} satisfies { [N in keyof Env]?: number | boolean | string };

export type SettingName = keyof typeof DEPLOYMENT_DEFAULTS;
type SettingValue<N extends SettingName> = (typeof DEPLOYMENT_DEFAULTS)[N] extends number
	? number
	: (typeof DEPLOYMENT_DEFAULTS)[N] extends boolean
		? boolean
		: string;

/** Settings that may be fractional (requests per second); every other number is read as an integer. */
const FRACTIONAL: ReadonlySet<SettingName> = new Set(["GATEWAY_RATE_LIMIT_RPS", "GATEWAY_RATE_LIMIT_BURST"]);

/** A deployment setting as configured, else its default; a value that does not parse counts as unset. */
export function setting<N extends SettingName>(env: Pick<Env, N>, name: N): SettingValue<N> {
	const raw = (env as Partial<Record<SettingName, string>>)[name];
	const fallback: number | boolean | string = DEPLOYMENT_DEFAULTS[name];
	if (typeof fallback === "number") return (FRACTIONAL.has(name) ? numberVar : intVar)(raw, fallback) as SettingValue<N>;
	if (typeof fallback === "boolean") return boolVar(raw, fallback) as SettingValue<N>;
	return (raw?.trim() || fallback) as SettingValue<N>;
}
