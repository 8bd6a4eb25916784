/**
 * A local Microsoft 365 calendar for tests, following Microsoft's published documents:
 * - Microsoft identity platform, authorization code flow with PKCE:
 *   GET /{tenant}/oauth2/v2.0/authorize (client_id, response_type=code, redirect_uri, scope with
 *   offline_access, state, code_challenge, code_challenge_method=S256), redirecting with `code`
 *   and `state`, or `error=access_denied` and `error_description` when the user declines;
 *   POST /{tenant}/oauth2/v2.0/token (authorization_code with code_verifier and client_secret;
 *   refresh_token), answering `{token_type, scope, expires_in, ext_expires_in, access_token,
 *   refresh_token, id_token}`, errors as `{error, error_description: "AADSTS…", error_codes,
 *   timestamp, trace_id, correlation_id}`. Each refresh returns a new refresh token and retires the
 *   one used: stricter than Entra ID (which lets the old one live out its lifetime), so a client
 *   that keeps the old one fails here.
 * - Graph v1.0: GET /v1.0/me/calendarView/delta (startDateTime and endDateTime on the first call;
 *   Prefer odata.maxpagesize; pages linked by @odata.nextLink with $skiptoken, the round ended by
 *   @odata.deltaLink with $deltatoken; later rounds give changes only, deleted events as
 *   `{id, "@removed": {reason: "deleted"}}`; an unknown deltatoken 410 SyncStateNotFound); 401
 *   InvalidAuthenticationToken for a missing or expired token; POST /v1.0/subscriptions
 *   (changeType, https notificationUrl, resource, expirationDateTime at most 10080 minutes on,
 *   clientState of at most 128 characters), PATCH and DELETE /v1.0/subscriptions/{id}.
 *
 * Graph validates a new subscription by POSTing `?validationToken=…` to its notificationUrl and
 * needs the token back as text/plain; the Worker's address in the tests is not reachable from
 * Node, so the subscription keeps the token it would have sent (`validationToken`), and the tests
 * make that request themselves. Events are stored as the tests give them (Graph event resources,
 * times in UTC). Control paths: PUT/DELETE /__accounts/:upn/events/:id, POST
 * /__accounts/:upn/expire-access, /revoke-grant, /forget-delta-tokens, /token-lifetime?seconds=N,
 * GET /__accounts/:upn.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { json, listenLocally, readBody } from "./node-http.ts";
import { AuthorizationServer, type ClientRegistration, formOf, idToken, newId } from "./oauth-provider-kit.ts";

export interface GraphCalendarServer {
	url: string;
	close(): Promise<void>;
}

type GraphEvent = Record<string, unknown> & { id: string };

interface Subscription {
	id: string;
	account: string;
	resource: string;
	changeType: string;
	notificationUrl: string;
	clientState: string | null;
	expirationDateTime: string;
	validationToken: string;
	deleted: boolean;
}

const MAX_SUBSCRIPTION_MINUTES = 10080;

function aadError(res: ServerResponse, status: number, error: string, code: number, message: string) {
	json(res, status, {
		error,
		error_description: `AADSTS${code}: ${message}`,
		error_codes: [code],
		timestamp: new Date().toISOString(),
		trace_id: newId(16),
		correlation_id: newId(16),
	});
}

function graphError(res: ServerResponse, status: number, code: string, message: string) {
	json(res, status, {
		error: { code, message, innerError: { date: new Date().toISOString(), "request-id": newId(16), "client-request-id": newId(16) } },
	});
}

const utc = (value: unknown) => Date.parse(`${String((value as Record<string, unknown> | undefined)?.dateTime ?? "")}Z`);

export async function startGraphCalendarServer(client: ClientRegistration): Promise<GraphCalendarServer> {
	const auth = new AuthorizationServer(client);
	const events = new Map<string, Map<string, { event: GraphEvent | null; seq: number }>>();
	const deltaTokens = new Map<string, { account: string; seq: number; start: number; end: number }>();
	const skipTokens = new Map<string, { account: string; since: number; seq: number; start: number; end: number; offset: number }>();
	const subscriptions = new Map<string, Subscription>();
	const deltaRequests = new Map<string, { url: string; prefer: string }[]>();
	let seq = 0;
	let origin = "";

	const calendar = (upn: string) => {
		let c = events.get(upn);
		if (!c) {
			c = new Map();
			events.set(upn, c);
		}
		return c;
	};

	function consent(url: URL, req: IncomingMessage, res: ServerResponse) {
		const p = url.searchParams;
		const redirectUri = p.get("redirect_uri") ?? "";
		if (p.get("client_id") !== client.clientId || !client.redirectUris.includes(redirectUri)) {
			return res
				.writeHead(400, { "content-type": "text/html" })
				.end("AADSTS50011: The redirect URI specified in the request does not match.");
		}
		const back = new URL(redirectUri);
		const scopes = (p.get("scope") ?? "").split(" ");
		if (
			p.get("response_type") !== "code" ||
			p.get("code_challenge_method") !== "S256" ||
			!p.get("code_challenge") ||
			!scopes.includes("offline_access")
		) {
			back.searchParams.set("error", "invalid_request");
			back.searchParams.set("error_description", "AADSTS900144: The request body must contain the following parameter.");
		} else if (req.headers["x-test-consent"] === "deny") {
			back.searchParams.set("error", "access_denied");
			back.searchParams.set("error_description", "AADSTS65004: User declined to consent to access the app.");
		} else {
			const upn = String(req.headers["x-test-user"] ?? "");
			calendar(upn);
			back.searchParams.set(
				"code",
				auth.issueCode({
					account: upn,
					clientId: client.clientId,
					redirectUri,
					challenge: p.get("code_challenge") ?? "",
					scope: p.get("scope") ?? "",
				}),
			);
		}
		back.searchParams.set("state", p.get("state") ?? "");
		res.writeHead(302, { location: back.toString() }).end();
	}

	function tokenEndpoint(form: URLSearchParams, req: IncomingMessage, res: ServerResponse) {
		if (!auth.clientAuthenticated(form, req)) return aadError(res, 401, "invalid_client", 7000215, "Invalid client secret provided.");
		const grantType = form.get("grant_type");
		let grant: { account: string; scope: string } | null = null;
		if (grantType === "authorization_code") {
			const checked = auth.redeemCode(form);
			if (!checked.ok) {
				if (checked.reason === "verifier" || checked.reason === "verifier_missing") {
					return aadError(
						res,
						400,
						"invalid_grant",
						501481,
						"The Code_Verifier does not match the code_challenge supplied in the authorization request.",
					);
				}
				return aadError(res, 400, "invalid_grant", 70000, "Provided grant is invalid or malformed.");
			}
			grant = checked;
		} else if (grantType === "refresh_token") {
			grant = auth.useRefreshToken(form.get("refresh_token") ?? "", true);
			if (!grant)
				return aadError(
					res,
					400,
					"invalid_grant",
					70008,
					"The provided authorization code or refresh token has expired due to inactivity.",
				);
		} else return aadError(res, 400, "unsupported_grant_type", 70003, "The app requested an unsupported grant type.");
		const t = auth.issueTokens(grant.account, grant.scope, true);
		json(res, 200, {
			token_type: "Bearer",
			scope: grant.scope,
			expires_in: t.expiresIn,
			ext_expires_in: t.expiresIn,
			access_token: t.accessToken,
			refresh_token: t.refreshToken,
			id_token: idToken({
				aud: client.clientId,
				iss: "https://login.microsoftonline.com/tenant/v2.0",
				preferred_username: grant.account,
				oid: newId(),
			}),
		});
	}

	function delta(upn: string, url: URL, req: IncomingMessage, res: ServerResponse) {
		const p = url.searchParams;
		const prefer = String(req.headers.prefer ?? "");
		deltaRequests.set(upn, [...(deltaRequests.get(upn) ?? []), { url: url.toString(), prefer }]);
		const pageSize = Number(prefer.match(/odata\.maxpagesize=(\d+)/)?.[1] ?? 10) || 10;
		let round: { since: number; seq: number; start: number; end: number; offset: number };
		const skip = p.get("$skiptoken");
		const deltaToken = p.get("$deltatoken");
		if (skip) {
			const known = skipTokens.get(skip);
			if (!known || known.account !== upn) return graphError(res, 400, "ErrorInvalidUrlQuery", "The skip token is invalid.");
			round = known;
		} else if (deltaToken) {
			const known = deltaTokens.get(deltaToken);
			if (!known || known.account !== upn)
				return graphError(res, 410, "SyncStateNotFound", "The sync state generation is not found. Please resync.");
			round = { since: known.seq, seq, start: known.start, end: known.end, offset: 0 };
		} else {
			const start = Date.parse(p.get("startDateTime") ?? "");
			const end = Date.parse(p.get("endDateTime") ?? "");
			if (Number.isNaN(start) || Number.isNaN(end)) {
				return graphError(
					res,
					400,
					"ErrorInvalidParameter",
					"This request requires a time window specified by the query string parameters StartDateTime and EndDateTime.",
				);
			}
			round = { since: -1, seq, start, end, offset: 0 };
		}
		const rows = [...calendar(upn).values()]
			.filter((r) => r.seq > round.since && r.seq <= round.seq)
			.filter((r) => r.event === null || (utc(r.event.end) > round.start && utc(r.event.start) < round.end))
			// The first round lists what is there; removals matter only to later rounds.
			.filter((r) => r.event !== null || round.since >= 0)
			.sort((a, b) => a.seq - b.seq);
		const value = rows.slice(round.offset, round.offset + pageSize).map(({ event, seq: s }) => {
			if (event) return { "@odata.type": "#microsoft.graph.event", "@odata.etag": `W/"${s}"`, ...event };
			const id = [...calendar(upn).entries()].find(([, r]) => r.seq === s)?.[0];
			return { "@odata.type": "#microsoft.graph.event", id, "@removed": { reason: "deleted" } };
		});
		const body: Record<string, unknown> = { "@odata.context": `${origin}/v1.0/$metadata#Collection(event)`, value };
		if (round.offset + pageSize < rows.length) {
			const token = newId();
			skipTokens.set(token, { account: upn, ...round, offset: round.offset + pageSize });
			body["@odata.nextLink"] = `${origin}/v1.0/me/calendarView/delta?$skiptoken=${token}`;
		} else {
			const token = newId();
			deltaTokens.set(token, { account: upn, seq: round.seq, start: round.start, end: round.end });
			body["@odata.deltaLink"] = `${origin}/v1.0/me/calendarView/delta?$deltatoken=${token}`;
		}
		json(res, 200, body);
	}

	const subscriptionView = (s: Subscription) => ({
		"@odata.context": `${origin}/v1.0/$metadata#subscriptions/$entity`,
		id: s.id,
		resource: s.resource,
		applicationId: client.clientId,
		changeType: s.changeType,
		clientState: s.clientState,
		notificationUrl: s.notificationUrl,
		expirationDateTime: s.expirationDateTime,
		creatorId: newId(),
		latestSupportedTlsVersion: "v1_2",
		notificationContentType: "application/json",
	});

	function expirationProblem(value: unknown): string | null {
		const at = Date.parse(String(value ?? ""));
		if (Number.isNaN(at) || at <= Date.now()) return "expirationDateTime must be in the future.";
		if (at > Date.now() + MAX_SUBSCRIPTION_MINUTES * 60_000)
			return `Subscription expiration can only be ${MAX_SUBSCRIPTION_MINUTES} minutes in the future.`;
		return null;
	}

	function subscriptionsEndpoint(upn: string, req: IncomingMessage, path: string, raw: string, res: ServerResponse) {
		const body = (raw ? JSON.parse(raw) : {}) as Record<string, unknown>;
		const id = path.split("/")[3];
		if (req.method === "POST" && !id) {
			const url = String(body.notificationUrl ?? "");
			if (!url.startsWith("https://")) return graphError(res, 400, "InvalidRequest", "The Notification Url must be an https url.");
			if (!body.changeType || !body.resource) return graphError(res, 400, "InvalidRequest", "changeType and resource are required.");
			if (typeof body.clientState === "string" && body.clientState.length > 128)
				return graphError(res, 400, "InvalidRequest", "clientState is longer than 128 characters.");
			const problem = expirationProblem(body.expirationDateTime);
			if (problem) return graphError(res, 400, "InvalidRequest", problem);
			const s: Subscription = {
				id: crypto.randomUUID(),
				account: upn,
				resource: String(body.resource),
				changeType: String(body.changeType),
				notificationUrl: url,
				clientState: typeof body.clientState === "string" ? body.clientState : null,
				expirationDateTime: new Date(Date.parse(String(body.expirationDateTime))).toISOString(),
				validationToken: `Validation: Testing client application reachability for subscription Request-Id: ${crypto.randomUUID()}`,
				deleted: false,
			};
			subscriptions.set(s.id, s);
			return json(res, 201, subscriptionView(s));
		}
		const s = id ? subscriptions.get(id) : undefined;
		if (!s || s.deleted || s.account !== upn) return graphError(res, 404, "ResourceNotFound", "The object was not found.");
		if (req.method === "PATCH") {
			const problem = expirationProblem(body.expirationDateTime);
			if (problem) return graphError(res, 400, "InvalidRequest", problem);
			s.expirationDateTime = new Date(Date.parse(String(body.expirationDateTime))).toISOString();
			return json(res, 200, subscriptionView(s));
		}
		if (req.method === "DELETE") {
			s.deleted = true;
			return res.writeHead(204).end();
		}
		graphError(res, 405, "Request_BadRequest", "Method not allowed.");
	}

	function control(req: IncomingMessage, url: URL, raw: string, res: ServerResponse) {
		const [, , upn = "", what = "", id = ""] = url.pathname.split("/").map(decodeURIComponent);
		const c = calendar(upn);
		if (what === "events" && req.method === "PUT") {
			c.set(id, { event: { ...(JSON.parse(raw) as GraphEvent), id }, seq: ++seq });
			return json(res, 200, { ok: true });
		}
		if (what === "events" && req.method === "DELETE") {
			c.set(id, { event: null, seq: ++seq });
			return json(res, 200, { ok: true });
		}
		if (what === "token-lifetime") auth.lifetimes.set(upn, Number(url.searchParams.get("seconds")));
		else if (what === "expire-access") auth.expireAccess(upn);
		else if (what === "revoke-grant") auth.revokeAccount(upn);
		else if (what === "forget-delta-tokens") {
			for (const [t, d] of deltaTokens) if (d.account === upn) deltaTokens.delete(t);
		} else if (what !== "") return json(res, 404, { error: "unknown control path" });
		json(res, 200, {
			...auth.stats(upn),
			subscriptions: [...subscriptions.values()].filter((s) => s.account === upn),
			deltaRequests: deltaRequests.get(upn) ?? [],
		});
	}

	const server = createServer(async (req, res) => {
		try {
			const url = new URL(req.url ?? "/", origin || "http://graph.test");
			const raw = (await readBody(req)).toString("utf8");
			const path = url.pathname;
			if (path.startsWith("/__accounts/")) return control(req, url, raw, res);
			const identity = path.match(/^\/[^/]+\/oauth2\/v2\.0\/(authorize|token)$/)?.[1];
			if (req.method === "GET" && identity === "authorize") return consent(url, req, res);
			if (req.method === "POST" && identity === "token") return tokenEndpoint(formOf(raw, req), req, res);
			if (!path.startsWith("/v1.0/")) return graphError(res, 404, "ResourceNotFound", "Resource not found.");
			const upn = auth.bearerAccount(req);
			if (!upn) {
				res.setHeader("www-authenticate", 'Bearer realm="", error="invalid_token"');
				return graphError(res, 401, "InvalidAuthenticationToken", "Lifetime validation failed, the token is expired.");
			}
			if (req.method === "GET" && path === "/v1.0/me/calendarView/delta") return delta(upn, url, req, res);
			if (path === "/v1.0/subscriptions" || path.startsWith("/v1.0/subscriptions/")) return subscriptionsEndpoint(upn, req, path, raw, res);
			graphError(res, 404, "ResourceNotFound", "Resource not found.");
		} catch (err) {
			graphError(res, 500, "InternalServerError", String(err));
		}
	});
	const listening = await listenLocally(server);
	origin = listening.url;
	return listening;
}
