import { Hono } from "hono";
import type { AppEnv } from "../app-env";
import { channelAttempt } from "../bot-channel/channel-token";
import { BOT_ATTEMPT_HEADER } from "../bot-channel/fleet";
import { ApiError } from "../errors";
import { authenticate, authenticateTicket, type Identity, INVALID_TICKET } from "../gateway/identity";
import { presentedKey } from "../gateway/presented-key";
import { KEY_EXPIRES_HEADER, KEY_ID_HEADER, refusedSocket } from "../live/feed-messages";
import { liveFeed, meetingRoom } from "../objects";
import { withoutUrlSecrets } from "../url-secrets";

/** WebSocket entry points: the public live feed `/ws` and the bots' channel. */
export const liveRoutes = new Hono<AppEnv>();

liveRoutes.get("/ws", async (c) => {
	if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "Expected a WebSocket upgrade");
	// A browser cannot set a header on a WebSocket: it brings a one-use ticket (POST /auth/ticket) instead of its key.
	// `?api_key=` stays for the reference's clients; it is redacted wherever a URL is logged (src/url-secrets.ts).
	const ticket = c.req.query("ticket");
	const key = presentedKey(c.req.raw.headers) ?? c.req.query("api_key");
	if (!ticket && !key) return refusedSocket({ error: "missing_api_key" }, 4401, "missing api key");
	let identity: Identity;
	try {
		identity = ticket
			? await authenticateTicket(c.env, ticket, ["bot", "tx"], "GET /ws")
			: await authenticate(c.env, key, ["bot", "tx"], "GET /ws");
	} catch (err) {
		if (!(err instanceof ApiError)) throw err;
		if (err.status === 401) {
			const detail = ticket ? INVALID_TICKET : "Invalid API key";
			return refusedSocket(
				{ error: "authorization_service_error", status: 401, detail },
				4401,
				ticket ? "invalid ticket" : "invalid api key",
			);
		}
		if (err.status === 403) {
			return refusedSocket({ error: "authorization_service_error", status: 403, detail: String(err.detail) }, 4403, "scope");
		}
		if (err.status === 429)
			return refusedSocket({ error: "authorization_service_error", status: 429, detail: "Rate limit exceeded" }, 1013, "rate limited");
		return refusedSocket({ error: "authorization_call_failed", details: "identity service unavailable" }, 1013, "try again later");
	}
	const headers = new Headers(c.req.raw.headers);
	headers.delete("x-api-key");
	headers.delete("authorization");
	headers.set("X-User-Id", String(identity.userId));
	// The key the socket stands on (a ticket's key): revoking it closes the socket (LiveFeed.revalidate).
	headers.set(KEY_ID_HEADER, String(identity.tokenId));
	if (identity.keyExpiresAt === null) headers.delete(KEY_EXPIRES_HEADER);
	else headers.set(KEY_EXPIRES_HEADER, String(identity.keyExpiresAt));
	const feed = liveFeed(c.env, identity.userId);
	// The feed learns who from the headers; the key or ticket stays out of the URL it is handed
	// (and so out of its invocation's logs and traces).
	return feed.fetch(new Request(withoutUrlSecrets(c.req.url), { method: "GET", headers }));
});

liveRoutes.get("/internal/bot-channel/:meeting_id", async (c) => {
	const { meetingId, attempt } = await channelAttempt(
		c.env.SECRETS_KEY,
		c.req.param("meeting_id"),
		c.req.header("authorization"),
		"bot channel",
	);
	if (c.req.header("upgrade")?.toLowerCase() !== "websocket") throw new ApiError(426, "Expected a WebSocket upgrade");
	// The room checks the attempt against its current one (409 for a replaced bot).
	const headers = new Headers(c.req.raw.headers);
	headers.set(BOT_ATTEMPT_HEADER, String(attempt));
	return meetingRoom(c.env, meetingId).fetch(new Request(c.req.raw, { headers }));
});
