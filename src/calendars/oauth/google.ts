/**
 * Google Calendar, as Google documents it: OAuth 2.0 for web server applications with PKCE
 * (accounts.google.com/o/oauth2/v2/auth, oauth2.googleapis.com/token and /revoke), Calendar API v3
 * events.list on the primary calendar (singleEvents, pageToken/nextPageToken, then nextSyncToken
 * for incremental sync; 410 means a full sync again), events.watch push channels and
 * channels.stop. Base URLs are deployment settings so tests can point them at a local server.
 */
import type { Env } from "../../env";
import { setting } from "../../settings/deployment-defaults";
import type { CalendarProvider, EventListing, ListingWindow } from "./calendar-provider";
import { importedEvent, instant, list, record } from "./event-shape";
import {
	baseUrl,
	bearer,
	checkedAnswer,
	formBody,
	idTokenClaims,
	type ProviderAnswer,
	ProviderFailure,
	providerCall,
	requestTokens,
	type TokenClient,
} from "./provider-http";

const LABEL = "Google Calendar";
/** Read-only events, plus the address shown as the connection's account. */
const SCOPES = "openid email https://www.googleapis.com/auth/calendar.events.readonly";
const PAGE_SIZE = 250;
const MAX_PAGES = 40;
/** Channels asked for a week (Google caps a channel's life anyway); renewed a day before they end. */
const CHANNEL_TTL_S = 7 * 24 * 3600;

const accounts = (env: Env) => baseUrl(setting(env, "GOOGLE_ACCOUNTS_BASE_URL"));
const oauth = (env: Env) => baseUrl(setting(env, "GOOGLE_OAUTH_BASE_URL"));
const api = (env: Env) => `${baseUrl(setting(env, "GOOGLE_API_BASE_URL"))}/calendar/v3`;
const tokenClient = (env: Env): TokenClient => ({
	label: LABEL,
	tokenUrl: `${oauth(env)}/token`,
	clientId: env.GOOGLE_CLIENT_ID ?? "",
	clientSecret: env.GOOGLE_CLIENT_SECRET ?? "",
});

const checked = (answer: ProviderAnswer, what: string) =>
	checkedAnswer(LABEL, answer, what, (body) => record(list(record(body.error).errors)[0]).reason);

export const google: CalendarProvider = {
	id: "google",
	label: LABEL,
	missingSetting(env) {
		if (!env.GOOGLE_CLIENT_ID) return "GOOGLE_CLIENT_ID";
		if (!env.GOOGLE_CLIENT_SECRET) return "GOOGLE_CLIENT_SECRET";
		return null;
	},

	authorizationUrl(env, request) {
		const url = new URL(`${accounts(env)}/o/oauth2/v2/auth`);
		url.search = new URLSearchParams({
			client_id: env.GOOGLE_CLIENT_ID ?? "",
			redirect_uri: request.redirectUri,
			response_type: "code",
			scope: SCOPES,
			// A refresh token, and asked again each time so that a reconnect gets one too.
			access_type: "offline",
			prompt: "consent",
			include_granted_scopes: "true",
			state: request.state,
			code_challenge: request.challenge,
			code_challenge_method: "S256",
		}).toString();
		return url.toString();
	},

	async exchangeCode(env, grant, now) {
		const { answer, tokens } = await requestTokens(
			tokenClient(env),
			{ code: grant.code, redirect_uri: grant.redirectUri, grant_type: "authorization_code", code_verifier: grant.verifier },
			now,
		);
		const email = idTokenClaims(answer.body.id_token).email;
		return { tokens, account: typeof email === "string" ? email : null };
	},

	async refresh(env, refreshToken, now) {
		return (await requestTokens(tokenClient(env), { refresh_token: refreshToken, grant_type: "refresh_token" }, now)).tokens;
	},

	async listEvents(env, accessToken, cursor, window) {
		if (cursor) {
			const changes = await listPages(env, accessToken, { syncToken: cursor }, window);
			if (changes !== "expired") return { ...changes, full: false };
		}
		const listing = await listPages(
			env,
			accessToken,
			{
				// Events still running a day back, so a plan under way is not taken as gone.
				timeMin: new Date(window.now.getTime() - 24 * 3600_000).toISOString(),
				timeMax: new Date(window.now.getTime() + window.horizonMs).toISOString(),
			},
			window,
		);
		if (listing === "expired") throw new ProviderFailure(`${LABEL} refused a full listing`);
		return { ...listing, full: true };
	},

	async watch(env, accessToken, request, now) {
		const channelId = crypto.randomUUID();
		const body = checked(
			await providerCall(LABEL, `${api(env)}/calendars/primary/events/watch`, {
				method: "POST",
				headers: { ...bearer(accessToken), "content-type": "application/json" },
				body: JSON.stringify({
					id: channelId,
					type: "web_hook",
					address: request.address,
					token: request.secret,
					params: { ttl: String(CHANNEL_TTL_S) },
				}),
			}),
			"watch",
		);
		// A renewal is a new channel: the old one is stopped once the new one is there.
		if (request.current) await this.stopWatch(env, accessToken, request.current).catch(() => undefined);
		const expiration = Number(body.expiration);
		return {
			channelId: typeof body.id === "string" ? body.id : channelId,
			resourceId: typeof body.resourceId === "string" ? body.resourceId : null,
			expiresAt: new Date(Number.isFinite(expiration) && expiration > 0 ? expiration : now.getTime() + CHANNEL_TTL_S * 1000),
		};
	},

	async stopWatch(env, accessToken, channel) {
		const answer = await providerCall(LABEL, `${api(env)}/channels/stop`, {
			method: "POST",
			headers: { ...bearer(accessToken), "content-type": "application/json" },
			body: JSON.stringify({ id: channel.channelId, resourceId: channel.resourceId }),
		});
		// 404: the channel had already ended.
		if (answer.status !== 404) checked(answer, "channels.stop");
	},

	async revoke(env, tokens) {
		// Revoking the refresh token ends the whole grant, its access tokens with it.
		const token = tokens.refreshToken ?? tokens.accessToken;
		const answer = await providerCall(LABEL, `${oauth(env)}/revoke`, formBody({ token }));
		// 400 invalid_token: already revoked (by the user in their Google account, say).
		if (answer.status !== 400) checked(answer, "revoke");
	},
};

type ListQuery = { syncToken: string } | { timeMin: string; timeMax: string };

async function listPages(
	env: Env,
	accessToken: string,
	query: ListQuery,
	window: ListingWindow,
): Promise<Omit<EventListing, "full"> | "expired"> {
	const events: EventListing["events"] = [];
	let pageToken: string | null = null;
	for (let page = 0; page < MAX_PAGES; page++) {
		const url = new URL(`${api(env)}/calendars/primary/events`);
		url.search = new URLSearchParams({
			...query,
			singleEvents: "true",
			maxResults: String(PAGE_SIZE),
			...(pageToken ? { pageToken } : {}),
		}).toString();
		const answer = await providerCall(LABEL, url.toString(), { headers: bearer(accessToken) });
		// 410 Gone: the sync token expired; Google asks for a full sync.
		if (answer.status === 410) return "expired";
		const body = checked(answer, "events.list");
		for (const item of list(body.items)) events.push(eventOf(record(item), window));
		if (typeof body.nextPageToken === "string" && body.nextPageToken) {
			pageToken = body.nextPageToken;
			continue;
		}
		return { events, cursor: typeof body.nextSyncToken === "string" ? body.nextSyncToken : null };
	}
	throw new ProviderFailure(`${LABEL} listed more than ${MAX_PAGES * PAGE_SIZE} events; the rest were not read`);
}

function eventOf(item: Record<string, unknown>, window: ListingWindow) {
	const organizer = record(item.organizer);
	const conference = record(item.conferenceData);
	const videoEntries = list(conference.entryPoints)
		.map(record)
		.filter((e) => e.entryPointType === "video")
		.map((e) => e.uri);
	return importedEvent(
		{
			id: String(item.id ?? ""),
			cancelled: item.status === "cancelled",
			start: instant(record(item.start).dateTime),
			end: instant(record(item.end).dateTime),
			title: item.summary,
			conferenceLinks: [item.hangoutLink, ...videoEntries],
			freeText: { location: item.location, description: item.description },
			attendees: list(item.attendees)
				.map(record)
				.map((a) => ({ name: a.displayName, address: a.email, resource: a.resource === true })),
			organizer: typeof organizer.email === "string" ? organizer.email : null,
			organizedByMe: organizer.self === true,
		},
		window,
	);
}
