/**
 * `createClient({ baseUrl, apiKey })`: one typed method per route of the OpenAPI document,
 * grouped by domain (docs/client.md#calling-the-api). Types come from schema.ts; each method
 * is a thin call of `call()` so the route's path and method are stated once, here.
 */
import { type CallOptions, call, type FetchLike, send, type Transport } from "./http.js";
import { createLive, type LiveOptions } from "./live.js";
import { readSse, type SseFrame } from "./sse.js";
import type { AgentFrame, BodyOf, Platform, QueryOf, Schemas } from "./types.js";

export interface ClientOptions {
	/** The gateway's origin, e.g. `https://meetbot.example.com`. */
	baseUrl: string;
	/**
	 * The key, or a function that returns it as each request is sent (a page's session, which
	 * signs in and out while the client lives); when it returns null no key is sent.
	 */
	apiKey: string | (() => string | null);
	/** A fetch to use instead of the global one (a service binding's `fetch`, a test's). */
	fetch?: FetchLike;
	/** The live feed's reconnect timing and socket factory. */
	live?: LiveOptions;
}

/** A one-use ticket for `/ws?ticket=` (POST /auth/ticket). */
export type WsTicket = Schemas["WsTicket"];

/** Where an SSE stream resumes, and how to abort it. */
export interface StreamOptions {
	lastEventId?: string;
	signal?: AbortSignal;
}

type MeetingRef = { platform: Platform; native_meeting_id: string };
type TranscriptFormat = NonNullable<QueryOf<"/transcripts/{platform}/{native_meeting_id}", "get">["format"]>;

export function createClient(options: ClientOptions) {
	const { apiKey } = options;
	const transport: Transport = {
		baseUrl: options.baseUrl,
		// Read on every request, so a key given as a function is the one current at that moment.
		get auth(): Record<string, string> {
			const key = typeof apiKey === "function" ? apiKey() : apiKey;
			return key === null ? {} : { "X-API-Key": key };
		},
		fetch: options.fetch ?? ((input, init) => fetch(input, init)),
	};
	const link = (platform: Platform, nativeMeetingId: string): { path: MeetingRef } => ({
		path: { platform, native_meeting_id: nativeMeetingId },
	});
	const stream = async function* <T>(method: "get" | "post", path: string, init: CallOptions & StreamOptions) {
		const headers = { accept: "text/event-stream", ...(init.lastEventId ? { "Last-Event-ID": init.lastEventId } : {}) };
		const response = await send(transport, method, path, { ...init, headers });
		yield* readSse<T>(response);
	};

	const auth = {
		/** The key's user and scopes. */
		me: () => call(transport, "get", "/auth/me"),
		/** A one-use ticket for `/ws` from places that cannot send headers on a WebSocket (browsers, Node's global WebSocket). */
		ticket: (): Promise<WsTicket> => call(transport, "post", "/auth/ticket"),
		/** Revokes this key's open tickets. */
		revokeTickets: () => call(transport, "delete", "/auth/ticket"),
		/** The caller's own keys (docs/api.md#your-own-api-keys): listed masked, minted within this key's scopes, revoked. */
		keys: {
			list: () => call(transport, "get", "/auth/keys"),
			mint: (body: BodyOf<"/auth/keys", "post"> = {}) => call(transport, "post", "/auth/keys", { body }),
			revoke: (keyId: number) => call(transport, "delete", "/auth/keys/{key_id}", { path: { key_id: keyId } }),
		},
	};

	const bots = {
		send: (body: BodyOf<"/bots", "post">) => call(transport, "post", "/bots", { body }),
		status: () => call(transport, "get", "/bots/status"),
		stop: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "delete", "/bots/{platform}/{native_meeting_id}", link(platform, nativeMeetingId)),
		configure: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/bots/{platform}/{native_meeting_id}/config", "put">) =>
			call(transport, "put", "/bots/{platform}/{native_meeting_id}/config", { ...link(platform, nativeMeetingId), body }),
		speak: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/bots/{platform}/{native_meeting_id}/speak", "post">) =>
			call(transport, "post", "/bots/{platform}/{native_meeting_id}/speak", { ...link(platform, nativeMeetingId), body }),
		stopSpeaking: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "delete", "/bots/{platform}/{native_meeting_id}/speak", link(platform, nativeMeetingId)),
		sendChat: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/bots/{platform}/{native_meeting_id}/chat", "post">) =>
			call(transport, "post", "/bots/{platform}/{native_meeting_id}/chat", { ...link(platform, nativeMeetingId), body }),
		chat: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "get", "/bots/{platform}/{native_meeting_id}/chat", link(platform, nativeMeetingId)),
		shareScreen: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/bots/{platform}/{native_meeting_id}/screen", "post">) =>
			call(transport, "post", "/bots/{platform}/{native_meeting_id}/screen", { ...link(platform, nativeMeetingId), body }),
		stopScreen: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "delete", "/bots/{platform}/{native_meeting_id}/screen", link(platform, nativeMeetingId)),
		setAvatar: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/bots/{platform}/{native_meeting_id}/avatar", "put">) =>
			call(transport, "put", "/bots/{platform}/{native_meeting_id}/avatar", { ...link(platform, nativeMeetingId), body }),
		resetAvatar: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "delete", "/bots/{platform}/{native_meeting_id}/avatar", link(platform, nativeMeetingId)),
	};

	const meetings = {
		/** Plans a meeting (a link and a time); calendar auto-join sends the bot. */
		plan: (body: BodyOf<"/meetings", "post">) => call(transport, "post", "/meetings", { body }),
		list: (query: QueryOf<"/meetings", "get"> = {}) => call(transport, "get", "/meetings", { query }),
		get: (meetingId: number) => call(transport, "get", "/meetings/{meeting_id}", { path: { meeting_id: meetingId } }),
		update: (meetingId: number, body: BodyOf<"/meetings/{meeting_id}", "patch">) =>
			call(transport, "patch", "/meetings/{meeting_id}", { path: { meeting_id: meetingId }, body }),
		updateByLink: (platform: Platform, nativeMeetingId: string, body: BodyOf<"/meetings/{platform}/{native_meeting_id}", "patch">) =>
			call(transport, "patch", "/meetings/{platform}/{native_meeting_id}", { ...link(platform, nativeMeetingId), body }),
		/** A plan goes (204); an ended meeting goes from every store, answered with a receipt (docs/retention.md#deleting-a-meeting). */
		delete: (meetingId: number) => call(transport, "delete", "/meetings/{meeting_id}", { path: { meeting_id: meetingId } }),
		/** Who was there: every stay, and talk time per participant and per speaker (docs/api.md#participants). */
		participants: (meetingId: number) => call(transport, "get", "/meetings/{meeting_id}/participants", { path: { meeting_id: meetingId } }),
		/** The meeting chat as the bot saw it, live or ended (docs/api.md#meeting-chat). */
		chat: (meetingId: number) => call(transport, "get", "/meetings/{meeting_id}/chat", { path: { meeting_id: meetingId } }),
		/** A completed meeting's summary, decisions and action items (404 while it has none). */
		summary: (meetingId: number) => call(transport, "get", "/meetings/{meeting_id}/summary", { path: { meeting_id: meetingId } }),
		/** Asks again for a summary that failed, had no model, or was never made (409 once it is pending or ready). */
		summarize: (meetingId: number) => call(transport, "post", "/meetings/{meeting_id}/summary", { path: { meeting_id: meetingId } }),
	};

	const transcripts = {
		/** Segments of every readable meeting matching `q`, best first (docs/api.md#search). */
		search: (query: QueryOf<"/transcripts/search", "get">) => call(transport, "get", "/transcripts/search", { query }),
		get: (platform: Platform, nativeMeetingId: string) =>
			call(transport, "get", "/transcripts/{platform}/{native_meeting_id}", link(platform, nativeMeetingId)),
		/** The transcript as a file's text: `srt`, `vtt`, `txt` or `json` (docs/api.md#exports). */
		export: async (platform: Platform, nativeMeetingId: string, format: TranscriptFormat): Promise<string> =>
			(await transcripts.exportFile(platform, nativeMeetingId, format)).text(),
		/** The same export as a Response, to save as a file: its `Content-Disposition` names it. */
		exportFile: (platform: Platform, nativeMeetingId: string, format: TranscriptFormat, init: { signal?: AbortSignal } = {}) =>
			send(transport, "get", "/transcripts/{platform}/{native_meeting_id}", {
				...link(platform, nativeMeetingId),
				query: { format },
				signal: init.signal,
			}),
		share: (
			platform: Platform,
			nativeMeetingId: string,
			query: QueryOf<"/transcripts/{platform}/{native_meeting_id}/share", "post"> = {},
		) => call(transport, "post", "/transcripts/{platform}/{native_meeting_id}/share", { ...link(platform, nativeMeetingId), query }),
		/** Revokes a share: its public link answers 404 from then on. */
		unshare: (platform: Platform, nativeMeetingId: string, shareId: string) =>
			call(transport, "delete", "/transcripts/{platform}/{native_meeting_id}/share/{share_id}", {
				path: { platform, native_meeting_id: nativeMeetingId, share_id: shareId },
			}),
		/** A shared transcript as plain text (no key needed: the link is the credential). */
		shared: async (shareFile: string): Promise<string> =>
			(await send({ ...transport, auth: {} }, "get", "/public/transcripts/{share_file}", { path: { share_file: shareFile } })).text(),
	};

	const recordings = {
		list: (query: QueryOf<"/recordings", "get"> = {}) => call(transport, "get", "/recordings", { query }),
		get: (recordingId: number) => call(transport, "get", "/recordings/{recording_id}", { path: { recording_id: recordingId } }),
		delete: (recordingId: number) => call(transport, "delete", "/recordings/{recording_id}", { path: { recording_id: recordingId } }),
		master: (recordingId: number, query: QueryOf<"/recordings/{recording_id}/master", "get"> = {}) =>
			call(transport, "get", "/recordings/{recording_id}/master", { path: { recording_id: recordingId }, query }),
		/** A signed, key-less download link for one media file. */
		downloadLink: (recordingId: number, mediaFileId: number) =>
			call(transport, "get", "/recordings/{recording_id}/media/{media_file_id}/download", {
				path: { recording_id: recordingId, media_file_id: mediaFileId },
			}),
		/**
		 * A signed download link's bytes (the `url` of `downloadLink`, taken apart): no key is sent, the
		 * signature is the credential. A Response, like `media`.
		 */
		publicMedia: (
			mediaFileId: number,
			fileName: string,
			query: QueryOf<"/public/recordings/{media_file_id}/{file_name}", "get">,
			init: { range?: string; signal?: AbortSignal } = {},
		) =>
			send({ ...transport, auth: {} }, "get", "/public/recordings/{media_file_id}/{file_name}", {
				path: { media_file_id: mediaFileId, file_name: fileName },
				query,
				headers: init.range ? { range: init.range } : {},
				signal: init.signal,
			}),
		/** The media bytes as a Response (stream it, or pass `range: "bytes=0-1023"` for 206). */
		media: (recordingId: number, mediaFileId: number, init: { range?: string; signal?: AbortSignal } = {}) =>
			send(transport, "get", "/recordings/{recording_id}/media/{media_file_id}/raw", {
				path: { recording_id: recordingId, media_file_id: mediaFileId },
				headers: init.range ? { range: init.range } : {},
				signal: init.signal,
			}),
	};

	const calendars = {
		list: () => call(transport, "get", "/user/calendars"),
		connect: (body: BodyOf<"/user/calendars", "post">) => call(transport, "post", "/user/calendars", { body }),
		update: (calendarId: string, body: BodyOf<"/user/calendars/{calendar_id}", "patch">) =>
			call(transport, "patch", "/user/calendars/{calendar_id}", { path: { calendar_id: calendarId }, body }),
		disconnect: (calendarId: string) => call(transport, "delete", "/user/calendars/{calendar_id}", { path: { calendar_id: calendarId } }),
		sync: (calendarId: string) => call(transport, "post", "/user/calendars/{calendar_id}/sync", { path: { calendar_id: calendarId } }),
		lastSync: (calendarId: string) => call(transport, "get", "/user/calendars/{calendar_id}/sync", { path: { calendar_id: calendarId } }),
		/** The calendar providers you can sign into (Google, Microsoft 365) and whether this deployment offers them. */
		providers: () => call(transport, "get", "/user/calendars/providers"),
		/** Starts a sign-in: send the browser to `authorization_url`; it comes back to `return_to` with `?calendar=<id>`. */
		signIn: (provider: "google" | "microsoft", body: BodyOf<"/user/calendars/oauth/{provider}", "post"> = {}) =>
			call(transport, "post", "/user/calendars/oauth/{provider}", { path: { provider }, body }),
		/** The single-calendar form of the reference API (`/user/calendar`). */
		primary: {
			get: () => call(transport, "get", "/user/calendar"),
			put: (body: BodyOf<"/user/calendar", "put">) => call(transport, "put", "/user/calendar", { body }),
			sync: () => call(transport, "post", "/user/calendar/sync"),
			lastSync: () => call(transport, "get", "/user/calendar/sync"),
		},
	};

	const user = {
		models: {
			get: () => call(transport, "get", "/user/models"),
			put: (body: BodyOf<"/user/models", "put">) => call(transport, "put", "/user/models", { body }),
		},
		transcription: {
			get: () => call(transport, "get", "/user/transcription"),
			put: (body: BodyOf<"/user/transcription", "put">) => call(transport, "put", "/user/transcription", { body }),
		},
		webhook: {
			get: () => call(transport, "get", "/user/webhook"),
			put: (body: BodyOf<"/user/webhook", "put">) => call(transport, "put", "/user/webhook", { body }),
			deliveries: (query: QueryOf<"/user/webhook/deliveries", "get"> = {}) => call(transport, "get", "/user/webhook/deliveries", { query }),
			/** Sends the signed `webhook.test` event to the webhook URL once, now; its result. */
			test: () => call(transport, "post", "/user/webhook/test"),
		},
		/** How long ended meetings keep their media, screenshots, diagnostics, search rows and stream log (docs/retention.md). */
		retention: {
			get: () => call(transport, "get", "/user/retention"),
			put: (body: BodyOf<"/user/retention", "put">) => call(transport, "put", "/user/retention", { body }),
		},
	};

	const agent = {
		health: () => call(transport, "get", "/agent/health"),
		models: () => call(transport, "get", "/agent/models"),
		/** One chat turn: the reply's frames as they stream (turn-accepted … done, turn-complete). */
		chat: (body: BodyOf<"/agent/chat", "post">, init: StreamOptions = {}): AsyncGenerator<SseFrame<AgentFrame>> =>
			stream<AgentFrame>("post", "/agent/chat", { body, ...init }),
		resetChat: (body: BodyOf<"/agent/chat/reset", "post">) => call(transport, "post", "/agent/chat/reset", { body }),
		/** The chat sessions; `{include: "workloads"}` adds the sessions of the agent's own workloads (`wl-…`). */
		sessions: (query: QueryOf<"/agent/sessions", "get"> = {}) => call(transport, "get", "/agent/sessions", { query }),
		history: (session: string) => call(transport, "get", "/agent/sessions/{session}/history", { path: { session } }),
		invoke: (body: BodyOf<"/agent/invocations", "post">) => call(transport, "post", "/agent/invocations", { body }),
		sendEvent: (body: BodyOf<"/agent/events", "post">) => call(transport, "post", "/agent/events", { body }),
		workload: (workloadId: string) => call(transport, "get", "/agent/workloads/{workload_id}", { path: { workload_id: workloadId } }),
		routines: {
			list: () => call(transport, "get", "/agent/routines"),
			create: (body: BodyOf<"/agent/routines", "post">) => call(transport, "post", "/agent/routines", { body }),
			setEnabled: (name: string, body: BodyOf<"/agent/routines/{name}/enabled", "patch">) =>
				call(transport, "patch", "/agent/routines/{name}/enabled", { path: { name }, body }),
			delete: (routineId: string) => call(transport, "delete", "/agent/routines/{routine_id}", { path: { routine_id: routineId } }),
		},
		/** Actions a turn held because it had read text other people wrote; confirming runs one, refusing drops it. */
		actions: {
			list: () => call(transport, "get", "/agent/actions"),
			decide: (actionId: string, body: BodyOf<"/agent/actions/{action_id}/confirmed", "patch">) =>
				call(transport, "patch", "/agent/actions/{action_id}/confirmed", { path: { action_id: actionId }, body }),
		},
		workspace: {
			init: () => call(transport, "post", "/agent/workspace/init"),
			tree: (query: QueryOf<"/agent/workspace/tree", "get"> = {}) => call(transport, "get", "/agent/workspace/tree", { query }),
			file: (path: string) => call(transport, "get", "/agent/workspace/file", { query: { path } }),
			/** Deletes an upload (`uploads/…`), freeing its share of the upload quota. */
			deleteUpload: (path: string) => call(transport, "delete", "/agent/workspace/file", { query: { path } }),
			history: () => call(transport, "get", "/agent/workspace/git"),
			attached: () => call(transport, "get", "/agent/workspace/attached"),
			swap: (body: BodyOf<"/agent/workspace/swap", "post">) => call(transport, "post", "/agent/workspace/swap", { body }),
			/** Uploads files (a multipart form with `files`). */
			upload: async (form: FormData) =>
				(await send(transport, "post", "/agent/workspace/upload", { body: form })).json() as Promise<Schemas["WorkspaceUploaded"]>,
		},
		meeting: {
			start: (body: BodyOf<"/agent/meeting/start", "post">) => call(transport, "post", "/agent/meeting/start", { body }),
			process: (body: BodyOf<"/agent/meeting/process", "post">) => call(transport, "post", "/agent/meeting/process", { body }),
			relayHealth: () => call(transport, "get", "/agent/meeting/relay-health"),
			/** The caller's meeting named by its number, its link or its own code. */
			resolve: (meeting: string) => call(transport, "get", "/agent/meeting/resolve", { query: { meeting } }),
			/** Where the meeting's copilot is: none, running, paused or ended. */
			copilot: (meeting: string) => call(transport, "get", "/agent/meeting/copilot", { query: { meeting } }),
			/** The meeting's stream (transcript and copilot events) from `lastEventId`, as it is logged. */
			stream: (query: QueryOf<"/agent/meeting/stream", "get">, init: StreamOptions = {}) =>
				stream<MeetingStreamEvent>("get", "/agent/meeting/stream", { query, ...init }),
		},
	};

	/** What the account used, per UTC day and per meeting, and its caps as they stand (docs/api.md#usage). */
	const usage = {
		get: (query: QueryOf<"/usage", "get"> = {}) => call(transport, "get", "/usage", { query }),
		meetings: (query: QueryOf<"/usage/meetings", "get"> = {}) => call(transport, "get", "/usage/meetings", { query }),
	};

	return {
		health: () => call(transport, "get", "/health"),
		auth,
		bots,
		meetings,
		transcripts,
		recordings,
		calendars,
		user,
		usage,
		agent,
		live: createLive(transport, auth.ticket, options.live),
	};
}

export type MeetbotClient = ReturnType<typeof createClient>;

/** One event of GET /agent/meeting/stream (docs/meeting-stream.md): `type` names it. */
export type MeetingStreamEvent = Schemas["MeetingStreamEvent"];

export interface AdminClientOptions {
	baseUrl: string;
	adminToken: string;
	fetch?: FetchLike;
}

/** The deployment's admin routes (`X-Admin-API-Key`): users, their keys, workspace members. */
export function createAdminClient(options: AdminClientOptions) {
	const transport: Transport = {
		baseUrl: options.baseUrl,
		auth: { "X-Admin-API-Key": options.adminToken },
		fetch: options.fetch ?? ((input, init) => fetch(input, init)),
	};
	return {
		users: {
			create: (body: BodyOf<"/admin/users", "post">) => call(transport, "post", "/admin/users", { body }),
			list: (query: QueryOf<"/admin/users", "get"> = {}) => call(transport, "get", "/admin/users", { query }),
			get: (userId: number) => call(transport, "get", "/admin/users/{user_id}", { path: { user_id: userId } }),
			byEmail: (email: string) => call(transport, "get", "/admin/users/email/{email}", { path: { email } }),
			update: (userId: number, body: BodyOf<"/admin/users/{user_id}", "patch">) =>
				call(transport, "patch", "/admin/users/{user_id}", { path: { user_id: userId }, body }),
			/** The account's usage caps (docs/api.md#usage); null is no cap. */
			usageCaps: (userId: number) => call(transport, "get", "/admin/users/{user_id}/usage-caps", { path: { user_id: userId } }),
			/** Sets caps: a number sets one, null clears it, an absent field keeps it. */
			setUsageCaps: (userId: number, body: BodyOf<"/admin/users/{user_id}/usage-caps", "patch">) =>
				call(transport, "patch", "/admin/users/{user_id}/usage-caps", { path: { user_id: userId }, body }),
		},
		keys: {
			mint: (
				userId: number,
				query: QueryOf<"/admin/users/{user_id}/tokens", "post"> = {},
				body: BodyOf<"/admin/users/{user_id}/tokens", "post"> = {},
			) => call(transport, "post", "/admin/users/{user_id}/tokens", { path: { user_id: userId }, query, body }),
			list: (userId: number) => call(transport, "get", "/admin/users/{user_id}/tokens", { path: { user_id: userId } }),
			revoke: (tokenId: number) => call(transport, "delete", "/admin/tokens/{token_id}", { path: { token_id: tokenId } }),
		},
		workspaces: {
			addMember: (workspaceId: string, userId: number) =>
				call(transport, "put", "/admin/workspaces/{workspace_id}/members/{user_id}", {
					path: { workspace_id: workspaceId, user_id: userId },
				}),
			removeMember: (workspaceId: string, userId: number) =>
				call(transport, "delete", "/admin/workspaces/{workspace_id}/members/{user_id}", {
					path: { workspace_id: workspaceId, user_id: userId },
				}),
		},
	};
}

export type MeetbotAdminClient = ReturnType<typeof createAdminClient>;

export interface OperatorClientOptions {
	baseUrl: string;
	/** The deployment's FLEET_METRICS_TOKEN, sent as the Bearer of the operator's routes only. */
	metricsToken: string;
	fetch?: FetchLike;
}

/** The operator's routes (docs/bot-fleet.md#join-health): join health as JSON, and as Prometheus text. */
export function createOperatorClient(options: OperatorClientOptions) {
	const transport: Transport = {
		baseUrl: options.baseUrl,
		auth: { Authorization: `Bearer ${options.metricsToken}` },
		fetch: options.fetch ?? ((input, init) => fetch(input, init)),
	};
	return {
		/** Per platform, how bots' joins ended over the last hour and day. */
		joinHealth: () => call(transport, "get", "/internal/fleet/join-health"),
		/** The same figures as `meetbot_join_*` gauges in the Prometheus text format. */
		metrics: async (): Promise<string> => (await send(transport, "get", "/metrics")).text(),
	};
}

export type MeetbotOperatorClient = ReturnType<typeof createOperatorClient>;
