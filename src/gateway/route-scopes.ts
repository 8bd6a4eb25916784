import { TrieRouter } from "hono/router/trie-router";
import type { Scope } from "./api-keys";

/**
 * The one route-to-scope table. Deny by default: a path that is neither public, admin nor
 * listed here is unreachable (it answers 404, like any unknown route), even if a handler
 * for it is mounted. A test checks that every mounted route appears here or in PUBLIC.
 */
export type Access = { kind: "public" } | { kind: "admin" } | { kind: "key"; scopes: readonly Scope[] };

const ANY_KEY: Access = { kind: "key", scopes: ["bot", "tx", "browser"] };
const SETTINGS: Access = { kind: "key", scopes: ["bot", "tx"] };
const BOT: Access = { kind: "key", scopes: ["bot"] };
const READ: Access = { kind: "key", scopes: ["bot", "tx"] };
/**
 * The meeting record plane (plans and their edits): `tx`, as in the reference gateway's
 * ROUTE_SCOPES (core/gateway/services/gateway/src/gateway/app.py), and `bot` too, which
 * already makes records by sending bots (docs/api.md#key-scopes).
 */
const RECORD: Access = { kind: "key", scopes: ["bot", "tx"] };
/**
 * Calendar connections take `bot`, as in the reference: a feed's auto-join sends bots, the
 * same power as `POST /bots` reached by another door, so a `tx` key neither reads nor connects one.
 */
const CALENDAR: Access = { kind: "key", scopes: ["bot"] };
const MCP: Access = { kind: "key", scopes: ["bot", "tx"] };
/** Authenticated inside the route: /ws reports key problems in-band, bots present a meeting token. */
const SELF_AUTHENTICATED: Access = { kind: "public" };
const PUBLIC: Access = { kind: "public" };
const ADMIN: Access = { kind: "admin" };

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The agent plane answers on its documented form `/agent/api/<path>` (docs/agent.md), on the
 * reference gateway's short form `/agent/<path>`, which its clients call (`POST /agent/chat`), and
 * on the legacy `/api/<path>` alias that still resolves (docs/api.md#the-legacy-api-alias-is-served-not-documented;
 * nothing else of the gateway lives under `/api`).
 * A `tx` key reads it: chat and invocations are open to it but run read-only
 * (src/agent/caller.ts `callerMode`), and what keeps running or keeps files (routines, uploads,
 * swap, init, the meeting copilot) takes `bot`, as everything that acts does.
 */
export const AGENT_PREFIXES = ["/agent/api", "/agent", "/api"] as const;
/** Served like the others, but left out of /openapi.json and the typed client: clients are pointed at `/agent`. */
export const LEGACY_AGENT_PREFIX = "/api";
const AGENT: Access = { kind: "key", scopes: ["bot", "tx"] };
const AGENT_ROUTES: ReadonlyArray<readonly [Method, string, Access?]> = [
	["GET", "/health"],
	["GET", "/models"],
	["POST", "/invocations"],
	["POST", "/events"],
	["GET", "/workloads/:workload_id"],
	["POST", "/chat"],
	["POST", "/chat/reset"],
	["GET", "/sessions"],
	["GET", "/sessions/:session/history"],
	["POST", "/routines", BOT],
	["GET", "/routines"],
	["PATCH", "/routines/:name/enabled", BOT],
	["DELETE", "/routines/:routine_id", BOT],
	// Held actions (docs/agent.md#text-other-people-wrote): confirming one acts, so it takes `bot`.
	["GET", "/actions"],
	["PATCH", "/actions/:action_id/confirmed", BOT],
	["GET", "/workspace/tree"],
	["GET", "/workspace/file"],
	["DELETE", "/workspace/file", BOT],
	["GET", "/workspace/git"],
	["POST", "/workspace/upload", BOT],
	["POST", "/workspace/init", BOT],
	["GET", "/workspace/attached"],
	["POST", "/workspace/swap", BOT],
	// git smart HTTP, read-only: `git clone <origin>/agent/api/workspace/repo.git`.
	["GET", "/workspace/repo.git/info/refs"],
	["POST", "/workspace/repo.git/git-upload-pack"],
	["POST", "/meeting/start", BOT],
	["POST", "/meeting/process", BOT],
	["GET", "/meeting/relay-health"],
	["GET", "/meeting/stream"],
	["GET", "/meeting/resolve"],
	["GET", "/meeting/copilot"],
];

export const ROUTE_ACCESS: ReadonlyArray<readonly [Method, string, Access]> = [
	["GET", "/health", PUBLIC],
	["GET", "/openapi.json", PUBLIC],

	["POST", "/admin/users", ADMIN],
	["GET", "/admin/users", ADMIN],
	["GET", "/admin/users/email/:email", ADMIN],
	["GET", "/admin/users/:user_id", ADMIN],
	["PATCH", "/admin/users/:user_id", ADMIN],
	["POST", "/admin/users/:user_id/tokens", ADMIN],
	["GET", "/admin/users/:user_id/tokens", ADMIN],
	["DELETE", "/admin/tokens/:token_id", ADMIN],
	["PUT", "/admin/workspaces/:workspace_id/members/:user_id", ADMIN],
	["DELETE", "/admin/workspaces/:workspace_id/members/:user_id", ADMIN],
	// An account's usage caps (docs/api.md#usage), set by the operator and shown to the user in GET /usage.
	["GET", "/admin/users/:user_id/usage-caps", ADMIN],
	["PATCH", "/admin/users/:user_id/usage-caps", ADMIN],
	// Each bot host's own credential (docs/bot-fleet.md#host-credentials).
	["POST", "/admin/bot-hosts", ADMIN],
	["GET", "/admin/bot-hosts", ADMIN],
	["DELETE", "/admin/bot-hosts/:host_id", ADMIN],

	["GET", "/auth/me", ANY_KEY],
	// The dashboard trades its key for a one-use, short-lived ticket that `/ws?ticket=` accepts (docs/dashboard.md).
	["POST", "/auth/ticket", READ],
	["DELETE", "/auth/ticket", READ],
	// A user's own keys (docs/api.md#your-own-api-keys): like settings, never for a browser-only key.
	["GET", "/auth/keys", SETTINGS],
	["POST", "/auth/keys", SETTINGS],
	["DELETE", "/auth/keys/:key_id", SETTINGS],
	["GET", "/user/models", SETTINGS],
	["PUT", "/user/models", SETTINGS],
	["GET", "/user/transcription", SETTINGS],
	["PUT", "/user/transcription", SETTINGS],
	["GET", "/user/webhook", SETTINGS],
	["PUT", "/user/webhook", SETTINGS],
	["GET", "/user/webhook/deliveries", SETTINGS],
	["POST", "/user/webhook/test", SETTINGS],
	["GET", "/user/retention", SETTINGS],
	["PUT", "/user/retention", SETTINGS],

	["POST", "/meetings", RECORD],
	["GET", "/meetings", READ],
	["GET", "/meetings/:meeting_id", READ],
	["PATCH", "/meetings/:meeting_id", RECORD],
	["DELETE", "/meetings/:meeting_id", RECORD],
	["GET", "/meetings/:meeting_id/participants", READ],
	["GET", "/meetings/:meeting_id/chat", READ],
	["GET", "/meetings/:meeting_id/summary", READ],
	["POST", "/meetings/:meeting_id/summary", READ],
	["PATCH", "/meetings/:platform/:native_meeting_id", RECORD],

	["POST", "/bots", BOT],
	["GET", "/bots/status", BOT],
	["DELETE", "/bots/:platform/:native_meeting_id", BOT],
	["PUT", "/bots/:platform/:native_meeting_id/config", BOT],
	["POST", "/bots/:platform/:native_meeting_id/speak", BOT],
	["DELETE", "/bots/:platform/:native_meeting_id/speak", BOT],
	["POST", "/bots/:platform/:native_meeting_id/chat", BOT],
	["GET", "/bots/:platform/:native_meeting_id/chat", BOT],
	["POST", "/bots/:platform/:native_meeting_id/screen", BOT],
	["DELETE", "/bots/:platform/:native_meeting_id/screen", BOT],
	["PUT", "/bots/:platform/:native_meeting_id/avatar", BOT],
	["DELETE", "/bots/:platform/:native_meeting_id/avatar", BOT],

	["GET", "/transcripts/search", READ],
	["GET", "/transcripts/:platform/:native_meeting_id", READ],
	["POST", "/transcripts/:platform/:native_meeting_id/share", READ],
	["DELETE", "/transcripts/:platform/:native_meeting_id/share/:share_id", READ],
	["GET", "/public/transcripts/:share_file", PUBLIC],

	["GET", "/recordings", READ],
	["GET", "/recordings/:recording_id", READ],
	// Destruction is not a read: a `tx` key, handed out for transcript access, never deletes (as in the reference).
	["DELETE", "/recordings/:recording_id", BOT],
	["GET", "/recordings/:recording_id/master", READ],
	["GET", "/recordings/:recording_id/media/:media_file_id/raw", READ],
	["GET", "/recordings/:recording_id/media/:media_file_id/download", READ],
	/** A download link signed by the gateway: its signature and expiry are the credential. */
	["GET", "/public/recordings/:media_file_id/:file_name", PUBLIC],
	/** A bot's screenshot, through a short-lived link the gateway signed for the meeting's owner. */
	["GET", "/public/screenshots/:meeting_id/:attempt/:name", PUBLIC],

	// What the account used (docs/api.md#usage): read like meetings and recordings, whose figures they are.
	["GET", "/usage", READ],
	["GET", "/usage/meetings", READ],

	["GET", "/user/calendars", CALENDAR],
	["GET", "/user/calendars/providers", CALENDAR],
	["POST", "/user/calendars/oauth/:provider", CALENDAR],
	// The browser comes back from the provider without a key: the single-use state binds it to the user.
	["GET", "/calendars/oauth/callback", PUBLIC],
	// Providers' change notifications, verified by the channel's token (Google) or clientState (Graph).
	["POST", "/calendars/push/google", PUBLIC],
	["POST", "/calendars/push/microsoft", PUBLIC],
	["POST", "/user/calendars", CALENDAR],
	["PATCH", "/user/calendars/:calendar_id", CALENDAR],
	["DELETE", "/user/calendars/:calendar_id", CALENDAR],
	["POST", "/user/calendars/:calendar_id/sync", CALENDAR],
	["GET", "/user/calendars/:calendar_id/sync", CALENDAR],
	["GET", "/user/calendar", CALENDAR],
	["PUT", "/user/calendar", CALENDAR],
	["GET", "/user/calendar/sync", CALENDAR],
	["POST", "/user/calendar/sync", CALENDAR],

	...AGENT_PREFIXES.flatMap((prefix) =>
		AGENT_ROUTES.map(([method, path, access]) => [method, `${prefix}${path}`, access ?? AGENT] as const),
	),

	// MCP over streamable HTTP (docs/mcp.md): each tool checks the scopes of the REST route it stands for.
	["POST", "/mcp", MCP],
	["GET", "/mcp", MCP],
	["DELETE", "/mcp", MCP],

	["GET", "/ws", SELF_AUTHENTICATED],
	["GET", "/internal/bot-channel/:meeting_id", SELF_AUTHENTICATED],
	["PUT", "/internal/recordings/:meeting_id", SELF_AUTHENTICATED],
	// A recording streamed in parts (docs/bot-channel.md#recording-parts), with the channel token.
	["PUT", "/internal/recordings/:meeting_id/parts/:type/:n", SELF_AUTHENTICATED],
	["POST", "/internal/recordings/:meeting_id/parts/complete", SELF_AUTHENTICATED],
	["PUT", "/internal/screenshots/:meeting_id/:name", SELF_AUTHENTICATED],
	// A bot's transcription requests, relayed to the account's endpoint with its token (docs/bot-channel.md).
	["POST", "/internal/bot-channel/:meeting_id/audio/transcriptions", SELF_AUTHENTICATED],
	// A bot's streaming transcription (Deepgram, AssemblyAI), relayed with the provider's key (docs/bot-channel.md).
	["GET", "/internal/bot-channel/:meeting_id/transcription/stream", SELF_AUTHENTICATED],
	// The bot fleet (docs/bot-fleet.md): each host holds its own credential, an autoscaler FLEET_METRICS_TOKEN.
	["POST", "/internal/bot-hosts/claims", SELF_AUTHENTICATED],
	// Hosts pull spawn tickets through the Worker with their own credential; only the Worker holds the queue's token.
	["POST", "/internal/bot-hosts/queue/messages/pull", SELF_AUTHENTICATED],
	["POST", "/internal/bot-hosts/queue/messages/ack", SELF_AUTHENTICATED],
	["POST", "/internal/bot-hosts/reports", SELF_AUTHENTICATED],
	["GET", "/internal/fleet/metrics", SELF_AUTHENTICATED],
	// Join health for the operator (docs/bot-fleet.md#join-health), with the same FLEET_METRICS_TOKEN.
	["GET", "/internal/fleet/join-health", SELF_AUTHENTICATED],
	["GET", "/metrics", SELF_AUTHENTICATED],
];

const router = new TrieRouter<Access>();
for (const [method, path, access] of ROUTE_ACCESS) router.add(method, path, access);

/**
 * The access rule of a request, or null when the table has no such method and path. A path
 * listed under other methods is no exception: docs/api.md#errors answers 404 for any route that is not
 * mounted, never 405.
 */
export function lookupAccess(method: string, path: string): Access | null {
	const verb = method === "HEAD" ? "GET" : method;
	const [matches] = router.match(verb, path);
	return matches[0]?.[0] ?? null;
}
