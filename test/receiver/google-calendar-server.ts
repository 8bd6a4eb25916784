/**
 * A local Google Calendar for tests, following Google's published documents:
 * - OAuth 2.0 for web server applications: GET /o/oauth2/v2/auth (client_id, redirect_uri,
 *   response_type=code, scope, state, code_challenge with code_challenge_method=S256), which
 *   redirects with `code` and `state`, or `error=access_denied` when the user declines;
 *   POST /token (authorization_code with code_verifier and the client secret; refresh_token,
 *   which answers without a new refresh token, as Google does), errors as
 *   `{error, error_description}` (invalid_client 401, invalid_grant 400); POST /revoke.
 * - Calendar API v3: GET /calendar/v3/calendars/primary/events (timeMin: end after it, timeMax:
 *   start before it; maxResults, pageToken → nextPageToken on every page but the last, which has
 *   nextSyncToken; syncToken → only changes since, deleted events as status "cancelled"; a stale
 *   syncToken 410 fullSyncRequired; syncToken with timeMin/timeMax 400), 401 with Google's error
 *   body for a missing or expired token; POST …/events/watch (id, type web_hook, https address,
 *   token, params.ttl → api#channel with resourceId and expiration in ms); POST /calendar/v3/channels/stop.
 *
 * Who signs in at the consent page is the `x-test-user` header of the request that opens the
 * authorization URL (the test plays the browser), and `x-test-consent: deny` declines. Google
 * would POST notifications to the channel's address; the Worker's address in the tests is not
 * reachable from Node, so the tests read the channel here and deliver Google's notification
 * themselves. Control paths (the tests' side): PUT /__accounts/:email/events/:id (a Google event
 * resource), DELETE /__accounts/:email/events/:id, POST /__accounts/:email/expire-access,
 * POST /__accounts/:email/revoke-grant, POST /__accounts/:email/token-lifetime?seconds=N, POST /__accounts/:email/forget-sync-tokens,
 * GET /__accounts/:email (tokens, channels, list requests).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { json, listenLocally, readBody } from "./node-http.ts";
import { AuthorizationServer, type ClientRegistration, formOf, idToken, newId } from "./oauth-provider-kit.ts";

export interface GoogleCalendarServer {
	url: string;
	close(): Promise<void>;
}

type GoogleEvent = Record<string, unknown> & { id: string; status?: string };

interface Account {
	events: Map<string, { event: GoogleEvent; seq: number }>;
	channels: Map<string, { id: string; resourceId: string; token: string | null; address: string; expiration: number; stopped: boolean }>;
	listRequests: Record<string, string>[];
}

const PAGE_MAX = 2500;

function googleError(res: ServerResponse, code: number, message: string, reason: string, status?: string) {
	json(res, code, { error: { code, message, errors: [{ message, domain: "global", reason }], ...(status ? { status } : {}) } });
}

export async function startGoogleCalendarServer(client: ClientRegistration): Promise<GoogleCalendarServer> {
	const auth = new AuthorizationServer(client);
	const accounts = new Map<string, Account>();
	const syncTokens = new Map<string, { account: string; seq: number }>();
	const pageTokens = new Map<string, { account: string; query: string; offset: number; seq: number }>();
	let seq = 0;

	const account = (email: string) => {
		let a = accounts.get(email);
		if (!a) {
			a = { events: new Map(), channels: new Map(), listRequests: [] };
			accounts.set(email, a);
		}
		return a;
	};

	/** The event as events.list shows it to `email`: organizer.self and attendees' self filled in. */
	const view = (email: string, event: GoogleEvent) => {
		const organizer = (event.organizer ?? {}) as Record<string, unknown>;
		const attendees = Array.isArray(event.attendees) ? (event.attendees as Record<string, unknown>[]) : undefined;
		return {
			kind: "calendar#event",
			etag: `"${seq}"`,
			...event,
			organizer: { ...organizer, ...(organizer.email === email ? { self: true } : {}) },
			...(attendees ? { attendees: attendees.map((a) => ({ ...a, ...(a.email === email ? { self: true } : {}) })) } : {}),
		};
	};

	function consent(url: URL, req: IncomingMessage, res: ServerResponse) {
		const p = url.searchParams;
		const redirectUri = p.get("redirect_uri") ?? "";
		// Google shows an error page (no redirect) for an unknown client or an unregistered redirect URI.
		if (p.get("client_id") !== client.clientId) return res.writeHead(401, { "content-type": "text/html" }).end("Error 401: invalid_client");
		if (!client.redirectUris.includes(redirectUri))
			return res.writeHead(400, { "content-type": "text/html" }).end("Error 400: redirect_uri_mismatch");
		const back = new URL(redirectUri);
		back.searchParams.set("state", p.get("state") ?? "");
		if (p.get("response_type") !== "code" || p.get("code_challenge_method") !== "S256" || !p.get("code_challenge") || !p.get("scope")) {
			back.searchParams.set("error", "invalid_request");
		} else if (req.headers["x-test-consent"] === "deny") {
			back.searchParams.set("error", "access_denied");
		} else {
			const email = String(req.headers["x-test-user"] ?? "");
			account(email);
			const scope = p.get("scope") ?? "";
			back.searchParams.set(
				"code",
				auth.issueCode({ account: email, clientId: client.clientId, redirectUri, challenge: p.get("code_challenge") ?? "", scope }),
			);
			back.searchParams.set("scope", scope);
		}
		res.writeHead(302, { location: back.toString() }).end();
	}

	function tokenEndpoint(form: URLSearchParams, req: IncomingMessage, res: ServerResponse) {
		if (!auth.clientAuthenticated(form, req)) return json(res, 401, { error: "invalid_client", error_description: "Unauthorized" });
		const grantType = form.get("grant_type");
		if (grantType === "authorization_code") {
			const checked = auth.redeemCode(form);
			if (!checked.ok) {
				if (checked.reason === "redirect_uri") return json(res, 400, { error: "redirect_uri_mismatch", error_description: "Bad Request" });
				const description = { code: "Bad Request", verifier_missing: "Missing code verifier.", verifier: "Invalid code verifier." }[
					checked.reason
				];
				return json(res, 400, { error: "invalid_grant", error_description: description });
			}
			const t = auth.issueTokens(checked.account, checked.scope, true);
			return json(res, 200, {
				access_token: t.accessToken,
				expires_in: t.expiresIn,
				refresh_token: t.refreshToken,
				scope: checked.scope,
				token_type: "Bearer",
				id_token: idToken({
					iss: "https://accounts.google.com",
					aud: client.clientId,
					sub: newId(),
					email: checked.account,
					email_verified: true,
				}),
			});
		}
		if (grantType === "refresh_token") {
			const grant = auth.useRefreshToken(form.get("refresh_token") ?? "", false);
			if (!grant) return json(res, 400, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
			const t = auth.issueTokens(grant.account, grant.scope, false);
			return json(res, 200, { access_token: t.accessToken, expires_in: t.expiresIn, scope: grant.scope, token_type: "Bearer" });
		}
		json(res, 400, { error: "unsupported_grant_type", error_description: `Invalid grant_type: ${grantType ?? ""}` });
	}

	function listEvents(email: string, url: URL, res: ServerResponse) {
		const a = account(email);
		const p = url.searchParams;
		a.listRequests.push(Object.fromEntries(p));
		const maxResults = Math.min(PAGE_MAX, Number(p.get("maxResults") ?? 250) || 250);
		const pageToken = p.get("pageToken");
		const syncToken = p.get("syncToken");
		if (syncToken && (p.has("timeMin") || p.has("timeMax"))) {
			return googleError(res, 400, "Sync token cannot be used with timeMin or timeMax.", "invalid");
		}
		let since = -1;
		if (syncToken) {
			const known = syncTokens.get(syncToken);
			if (!known || known.account !== email)
				return googleError(res, 410, "Sync token is no longer valid, a full sync is required.", "fullSyncRequired");
			since = known.seq;
		}
		const query = JSON.stringify([p.get("timeMin"), p.get("timeMax"), syncToken]);
		let offset = 0;
		let snapshot = seq;
		if (pageToken) {
			const page = pageTokens.get(pageToken);
			if (!page || page.account !== email || page.query !== query) return googleError(res, 400, "Invalid page token value.", "invalid");
			offset = page.offset;
			snapshot = page.seq;
		}
		const timeMin = p.get("timeMin") ? Date.parse(p.get("timeMin") ?? "") : Number.NEGATIVE_INFINITY;
		const timeMax = p.get("timeMax") ? Date.parse(p.get("timeMax") ?? "") : Number.POSITIVE_INFINITY;
		const matching = [...a.events.values()]
			.filter(({ seq: s }) => s <= snapshot && s > since)
			// Without syncToken deleted events are left out (showDeleted defaults to false); with it they come as cancelled.
			.filter(({ event }) => syncToken !== null || event.status !== "cancelled")
			.filter(({ event }) => {
				if (syncToken) return true;
				const start = Date.parse(String((event.start as Record<string, unknown>)?.dateTime ?? ""));
				const end = Date.parse(String((event.end as Record<string, unknown>)?.dateTime ?? ""));
				return end > timeMin && start < timeMax;
			})
			.sort((x, y) => x.event.id.localeCompare(y.event.id));
		const items = matching.slice(offset, offset + maxResults).map(({ event }) => view(email, event));
		const body: Record<string, unknown> = {
			kind: "calendar#events",
			etag: `"${snapshot}"`,
			summary: email,
			updated: new Date().toISOString(),
			timeZone: "UTC",
			accessRole: "owner",
			defaultReminders: [],
			items,
		};
		if (offset + maxResults < matching.length) {
			const next = `pt-${newId()}`;
			pageTokens.set(next, { account: email, query, offset: offset + maxResults, seq: snapshot });
			body.nextPageToken = next;
		} else {
			const next = `st-${newId()}`;
			syncTokens.set(next, { account: email, seq: snapshot });
			body.nextSyncToken = next;
		}
		json(res, 200, body);
	}

	function watch(email: string, raw: string, res: ServerResponse) {
		const a = account(email);
		let body: Record<string, unknown>;
		try {
			body = JSON.parse(raw) as Record<string, unknown>;
		} catch {
			return googleError(res, 400, "Parse Error", "parseError");
		}
		const id = typeof body.id === "string" ? body.id : "";
		const address = typeof body.address === "string" ? body.address : "";
		if (!id || id.length > 64) return googleError(res, 400, "Channel id must be 1 to 64 characters.", "required");
		if (body.type !== "web_hook") return googleError(res, 400, "Unknown channel type.", "invalid");
		if (!address.startsWith("https://"))
			return googleError(res, 400, `WebHook callback must be HTTPS: ${address}`, "push.webhookUrlNotHttps");
		if ([...accounts.values()].some((acc) => acc.channels.has(id)))
			return googleError(res, 400, `Channel id ${id} not unique`, "channelIdNotUnique");
		const ttl = Number((body.params as Record<string, unknown> | undefined)?.ttl ?? 604800);
		const channel = {
			id,
			resourceId: `res-${newId()}`,
			token: typeof body.token === "string" ? body.token : null,
			address,
			expiration: Date.now() + Math.min(ttl, 2_592_000) * 1000,
			stopped: false,
		};
		a.channels.set(id, channel);
		json(res, 200, {
			kind: "api#channel",
			id,
			resourceId: channel.resourceId,
			resourceUri: "https://www.googleapis.com/calendar/v3/calendars/primary/events?alt=json",
			...(channel.token ? { token: channel.token } : {}),
			expiration: String(channel.expiration),
		});
	}

	function stop(email: string, raw: string, res: ServerResponse) {
		const body = JSON.parse(raw || "{}") as Record<string, unknown>;
		const channel = account(email).channels.get(String(body.id ?? ""));
		if (!channel || channel.resourceId !== body.resourceId || channel.stopped) {
			return googleError(res, 404, `Channel '${String(body.id ?? "")}' not found`, "notFound");
		}
		channel.stopped = true;
		res.writeHead(204).end();
	}

	function control(req: IncomingMessage, url: URL, raw: string, res: ServerResponse) {
		const [, , email = "", what = "", id = ""] = url.pathname.split("/").map(decodeURIComponent);
		const a = account(email);
		if (what === "events" && req.method === "PUT") {
			a.events.set(id, { event: { ...(JSON.parse(raw) as GoogleEvent), id }, seq: ++seq });
			return json(res, 200, { ok: true });
		}
		if (what === "events" && req.method === "DELETE") {
			const known = a.events.get(id);
			if (known) a.events.set(id, { event: { id, status: "cancelled" }, seq: ++seq });
			return json(res, 200, { ok: Boolean(known) });
		}
		if (what === "token-lifetime") auth.lifetimes.set(email, Number(url.searchParams.get("seconds")));
		else if (what === "expire-access") auth.expireAccess(email);
		else if (what === "revoke-grant") auth.revokeAccount(email);
		else if (what === "forget-sync-tokens") {
			for (const [t, s] of syncTokens) if (s.account === email) syncTokens.delete(t);
		} else if (what !== "") return json(res, 404, { error: "unknown control path" });
		json(res, 200, { ...auth.stats(email), channels: [...a.channels.values()], listRequests: a.listRequests });
	}

	const server = createServer(async (req, res) => {
		try {
			const url = new URL(req.url ?? "/", "http://google.test");
			const raw = (await readBody(req)).toString("utf8");
			const path = url.pathname;
			if (path.startsWith("/__accounts/")) return control(req, url, raw, res);
			if (req.method === "GET" && path === "/o/oauth2/v2/auth") return consent(url, req, res);
			if (req.method === "POST" && path === "/token") return tokenEndpoint(formOf(raw, req), req, res);
			if (req.method === "POST" && path === "/revoke") {
				const presented = url.searchParams.get("token") ?? formOf(raw, req).get("token") ?? "";
				return auth.revoke(presented)
					? json(res, 200, {})
					: json(res, 400, { error: "invalid_token", error_description: "Token expired or revoked" });
			}
			if (!path.startsWith("/calendar/v3/")) return googleError(res, 404, "Not Found", "notFound");
			const email = auth.bearerAccount(req);
			if (!email) {
				return googleError(
					res,
					401,
					"Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
					"authError",
					"UNAUTHENTICATED",
				);
			}
			if (req.method === "GET" && path === "/calendar/v3/calendars/primary/events") return listEvents(email, url, res);
			if (req.method === "POST" && path === "/calendar/v3/calendars/primary/events/watch") return watch(email, raw, res);
			if (req.method === "POST" && path === "/calendar/v3/channels/stop") return stop(email, raw, res);
			googleError(res, 404, "Not Found", "notFound");
		} catch (err) {
			json(res, 500, { error: { code: 500, message: String(err) } });
		}
	});
	return listenLocally(server);
}
