/**
 * Microsoft 365 calendars, as the Microsoft identity platform and Graph document them: the
 * authorization code flow with PKCE on login.microsoftonline.com/{tenant}/oauth2/v2.0 (refresh
 * tokens rotate: each refresh returns a new one, which replaces the old), the calendar view's
 * delta query (`/me/calendarView/delta`, paged by @odata.nextLink, ended by @odata.deltaLink,
 * deleted events as `@removed`), and change-notification subscriptions on `me/events` (created,
 * renewed by PATCH before expirationDateTime, deleted on disconnect). Graph has no endpoint to
 * revoke one app's refresh token for a user (revokeSignInSessions ends every session of the
 * user), so disconnecting deletes the subscription and the sealed tokens; the user removes the
 * app's consent at myapps.microsoft.com.
 */
import type { Env } from "../../env";
import { setting } from "../../settings/deployment-defaults";
import type { CalendarProvider, EventListing, ListingWindow } from "./calendar-provider";
import { importedEvent, instant, list, record } from "./event-shape";
import {
	baseUrl,
	bearer,
	checkedAnswer,
	idTokenClaims,
	type ProviderAnswer,
	ProviderFailure,
	providerCall,
	requestTokens,
	type TokenClient,
} from "./provider-http";

const LABEL = "Microsoft 365";
const SCOPES = "openid email offline_access Calendars.Read";
const PAGE_SIZE = 100;
const MAX_PAGES = 40;
/** Subscriptions on Outlook events last at most 10080 minutes; asked for under three days and renewed a day before. */
const SUBSCRIPTION_MINUTES = 4230;

const login = (env: Env) =>
	`${baseUrl(setting(env, "MICROSOFT_LOGIN_BASE_URL"))}/${encodeURIComponent(setting(env, "MICROSOFT_TENANT"))}/oauth2/v2.0`;
const tokenClient = (env: Env): TokenClient => ({
	label: LABEL,
	tokenUrl: `${login(env)}/token`,
	clientId: env.MICROSOFT_CLIENT_ID ?? "",
	clientSecret: env.MICROSOFT_CLIENT_SECRET ?? "",
});
const graph = (env: Env) => `${baseUrl(setting(env, "GRAPH_BASE_URL"))}/v1.0`;

const checked = (answer: ProviderAnswer, what: string) => checkedAnswer(LABEL, answer, what, (body) => record(body.error).code);

export const microsoft: CalendarProvider = {
	id: "microsoft",
	label: LABEL,
	missingSetting(env) {
		if (!env.MICROSOFT_CLIENT_ID) return "MICROSOFT_CLIENT_ID";
		if (!env.MICROSOFT_CLIENT_SECRET) return "MICROSOFT_CLIENT_SECRET";
		return null;
	},

	authorizationUrl(env, request) {
		const url = new URL(`${login(env)}/authorize`);
		url.search = new URLSearchParams({
			client_id: env.MICROSOFT_CLIENT_ID ?? "",
			response_type: "code",
			redirect_uri: request.redirectUri,
			response_mode: "query",
			scope: SCOPES,
			state: request.state,
			code_challenge: request.challenge,
			code_challenge_method: "S256",
		}).toString();
		return url.toString();
	},

	async exchangeCode(env, grant, now) {
		const { answer, tokens } = await requestTokens(
			tokenClient(env),
			{
				scope: SCOPES,
				code: grant.code,
				redirect_uri: grant.redirectUri,
				grant_type: "authorization_code",
				code_verifier: grant.verifier,
			},
			now,
		);
		const claims = idTokenClaims(answer.body.id_token);
		const account = claims.preferred_username ?? claims.email;
		return { tokens, account: typeof account === "string" ? account : null };
	},

	async refresh(env, refreshToken, now) {
		const grant = { scope: SCOPES, refresh_token: refreshToken, grant_type: "refresh_token" };
		return (await requestTokens(tokenClient(env), grant, now)).tokens;
	},

	async listEvents(env, accessToken, cursor, window) {
		if (cursor) {
			const changes = await listPages(env, accessToken, cursor, window);
			if (changes !== "expired") return { ...changes, full: false };
		}
		const url = new URL(`${graph(env)}/me/calendarView/delta`);
		url.search = new URLSearchParams({
			// Events still running a day back, so a plan under way is not taken as gone.
			startDateTime: new Date(window.now.getTime() - 24 * 3600_000).toISOString(),
			endDateTime: new Date(window.now.getTime() + window.horizonMs).toISOString(),
		}).toString();
		const listing = await listPages(env, accessToken, url.toString(), window);
		if (listing === "expired") throw new ProviderFailure(`${LABEL} refused a full listing`);
		return { ...listing, full: true };
	},

	async watch(env, accessToken, request, now) {
		const expirationDateTime = new Date(now.getTime() + SUBSCRIPTION_MINUTES * 60_000).toISOString();
		if (request.current) {
			const renewed = await providerCall(LABEL, `${graph(env)}/subscriptions/${encodeURIComponent(request.current.channelId)}`, {
				method: "PATCH",
				headers: { ...bearer(accessToken), "content-type": "application/json" },
				body: JSON.stringify({ expirationDateTime }),
			});
			// 404: the subscription lapsed or was removed; a new one is made below.
			if (renewed.status !== 404) return subscriptionOf(checked(renewed, "subscription renewal"), request.current.channelId, now);
		}
		const body = checked(
			await providerCall(LABEL, `${graph(env)}/subscriptions`, {
				method: "POST",
				headers: { ...bearer(accessToken), "content-type": "application/json" },
				body: JSON.stringify({
					changeType: "created,updated,deleted",
					notificationUrl: request.address,
					resource: "me/events",
					expirationDateTime,
					clientState: request.secret,
				}),
			}),
			"subscription",
		);
		return subscriptionOf(body, "", now);
	},

	async stopWatch(env, accessToken, channel) {
		const answer = await providerCall(LABEL, `${graph(env)}/subscriptions/${encodeURIComponent(channel.channelId)}`, {
			method: "DELETE",
			headers: bearer(accessToken),
		});
		if (answer.status !== 404) checked(answer, "subscription deletion");
	},

	async revoke() {
		// No per-app token revocation in Graph (see the file's comment): the sealed tokens go with the row.
	},
};

function subscriptionOf(body: Record<string, unknown>, fallbackId: string, now: Date) {
	const expires = instant(body.expirationDateTime);
	const id = typeof body.id === "string" ? body.id : fallbackId;
	if (!id) throw new ProviderFailure(`${LABEL} answered a subscription without an id`);
	return { channelId: id, resourceId: null, expiresAt: expires ?? new Date(now.getTime() + SUBSCRIPTION_MINUTES * 60_000) };
}

async function listPages(
	env: Env,
	accessToken: string,
	first: string,
	window: ListingWindow,
): Promise<Omit<EventListing, "full"> | "expired"> {
	const events: EventListing["events"] = [];
	let next = first;
	for (let page = 0; page < MAX_PAGES; page++) {
		// Links come from Graph's answers; only ones on the configured Graph host are followed.
		if (!next.startsWith(`${graph(env)}/`)) throw new ProviderFailure(`${LABEL} answered a link off its own host`);
		const answer = await providerCall(LABEL, next, {
			headers: { ...bearer(accessToken), prefer: `odata.maxpagesize=${PAGE_SIZE}, outlook.timezone="UTC"` },
		});
		// 410 Gone (syncStateNotFound, resyncRequired): the delta link expired; a full listing again.
		if (answer.status === 410) return "expired";
		const body = checked(answer, "calendar view");
		for (const item of list(body.value)) events.push(eventOf(record(item), window));
		const nextLink = body["@odata.nextLink"];
		if (typeof nextLink === "string" && nextLink) {
			next = nextLink;
			continue;
		}
		const deltaLink = body["@odata.deltaLink"];
		return { events, cursor: typeof deltaLink === "string" ? deltaLink : null };
	}
	throw new ProviderFailure(`${LABEL} listed more than ${MAX_PAGES * PAGE_SIZE} events; the rest were not read`);
}

/** Graph's dateTimeTimeZone: a local time without offset, in `timeZone` (UTC as asked by Prefer). */
function graphInstant(value: unknown): Date | null {
	const { dateTime, timeZone } = record(value);
	if (typeof dateTime !== "string") return null;
	const utc = timeZone === undefined || timeZone === "UTC" || timeZone === "Etc/UTC";
	return utc && !/(Z|[+-]\d\d:\d\d)$/.test(dateTime) ? instant(`${dateTime}Z`) : instant(dateTime);
}

function eventOf(item: Record<string, unknown>, window: ListingWindow) {
	const organizer = record(record(item.organizer).emailAddress);
	const removed = item["@removed"] !== undefined;
	return importedEvent(
		{
			id: String(item.id ?? ""),
			cancelled: removed || item.isCancelled === true,
			start: item.isAllDay === true ? null : graphInstant(item.start),
			end: item.isAllDay === true ? null : graphInstant(item.end),
			title: item.subject,
			conferenceLinks: [record(item.onlineMeeting).joinUrl, item.onlineMeetingUrl],
			freeText: { location: record(item.location).displayName, body: record(item.body).content },
			attendees: list(item.attendees)
				.map(record)
				.map((a) => ({ name: record(a.emailAddress).name, address: record(a.emailAddress).address, resource: a.type === "resource" })),
			organizer: typeof organizer.address === "string" ? organizer.address : null,
			organizedByMe: item.isOrganizer === true,
		},
		window,
	);
}
