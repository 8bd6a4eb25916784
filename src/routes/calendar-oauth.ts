import { createRoute, z } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import { PROVIDER_IDS, type ProviderId } from "../calendars/oauth/calendar-provider";
import { notifiedConnection, syncOnNotification } from "../calendars/oauth/notifications";
import { allProviders } from "../calendars/oauth/providers";
import {
	browserCookieFor,
	browserCookieHeader,
	CALLBACK_PATH,
	configuredProvider,
	finishSignIn,
	startSignIn,
} from "../calendars/oauth/sign-in";
import { publicBaseUrl } from "../env";
import { errorText } from "../error-text";
import { calendarText } from "./calendar-schemas";
import { jsonResponse, routeModule } from "./openapi-app";

/**
 * Calendars you sign into (docs/api.md#calendars-you-sign-into): which providers this deployment
 * offers, the start of a sign-in, the provider's callback, and the providers' change notifications.
 */
export const calendarOauthRoutes = routeModule();

const Detail = z.object({ detail: z.string() });

calendarOauthRoutes.openapi(
	createRoute({
		method: "get",
		path: "/user/calendars/providers",
		responses: {
			200: jsonResponse(
				z.object({ providers: z.array(z.object({ id: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]), configured: z.boolean() })) }),
				"The calendar providers you can sign into, and whether this deployment has their client set",
			),
		},
	}),
	(c) => c.json({ providers: allProviders().map((p) => ({ id: p.id, configured: p.missingSetting(c.env) === null })) }, 200),
);

/** A dashboard path to come back to: same origin, relative, no scheme-relative `//` or backslash tricks. */
const ReturnTo = z
	.string()
	.max(500)
	.regex(/^\/(?![/\\])[^\s\\]*$/, { message: "return_to must be a path on this site, like /#/calendars" });

calendarOauthRoutes.openapi(
	createRoute({
		method: "post",
		path: "/user/calendars/oauth/{provider}",
		request: {
			params: z.object({ provider: z.enum(PROVIDER_IDS as [ProviderId, ...ProviderId[]]) }),
			body: {
				required: false,
				content: {
					"application/json": {
						schema: z.strictObject({
							name: calendarText().optional(),
							auto_join: z.boolean().optional(),
							bot_name: calendarText().optional(),
							return_to: ReturnTo.optional(),
						}),
					},
				},
			},
		},
		responses: {
			200: jsonResponse(
				z.object({ authorization_url: z.string(), state: z.string() }),
				"Where to send the browser to sign in; the state is good once, for ten minutes",
			),
			503: jsonResponse(Detail, "The provider's client is not configured on this deployment; the detail names the setting"),
		},
	}),
	async (c) => {
		const provider = configuredProvider(c.env, c.req.valid("param").provider);
		const body = (c.req.valid("json") as Record<string, unknown> | undefined) ?? {};
		const start = await startSignIn(
			c.env,
			c.get("identity").userId,
			provider,
			{
				name: typeof body.name === "string" ? body.name : null,
				autoJoin: body.auto_join !== false,
				botName: typeof body.bot_name === "string" ? body.bot_name : null,
				returnTo: typeof body.return_to === "string" ? body.return_to : "/",
				redirectUri: `${publicBaseUrl(c.env, c.req.raw)}${CALLBACK_PATH}`,
			},
			c.get("clock").now(),
		);
		// The browser that asked is the one that may finish: the callback needs this cookie back.
		c.header("set-cookie", browserCookieHeader(start.cookie, new URL(c.req.url).protocol === "https:"));
		return c.json({ authorization_url: start.authorization_url, state: start.state }, 200);
	},
);

calendarOauthRoutes.openapi(
	createRoute({
		method: "get",
		path: CALLBACK_PATH,
		request: {
			query: z.object({
				code: z.string().max(4096).optional(),
				state: z.string().max(512).optional(),
				error: z.string().max(200).optional(),
			}),
		},
		responses: {
			302: { description: "Back to return_to with ?calendar=<id>, or ?calendar_error=<code> (access_denied, sign_in_failed, …)" },
			400: {
				content: { "text/html": { schema: z.string() } },
				description: "The state is unknown, used or expired: a page that says to start again",
			},
		},
	}),
	async (c) => {
		const query = c.req.valid("query");
		const cookieName = query.state ? await browserCookieFor(query.state) : null;
		const browser = cookieName ? getCookie(c, cookieName) : undefined;
		const outcome = await finishSignIn(c.env, query, browser, c.get("clock").now());
		if (cookieName)
			c.header("set-cookie", browserCookieHeader({ name: cookieName, value: "" }, new URL(c.req.url).protocol === "https:", 0));
		if ("redirect" in outcome) return c.redirect(outcome.redirect, 302);
		return c.html(outcome.page, outcome.status);
	},
);

/** A notification's sync runs after the answer: providers want one within seconds. */
function syncLater(c: { executionCtx: { waitUntil(promise: Promise<unknown>): void } }, work: Promise<void>) {
	c.executionCtx.waitUntil(work.catch((err) => console.error("calendar notification sync failed", errorText(err))));
}

calendarOauthRoutes.openapi(
	createRoute({
		method: "post",
		path: "/calendars/push/google",
		request: {
			headers: z.object({
				"x-goog-channel-id": z.string().max(200),
				"x-goog-channel-token": z.string().max(256).optional(),
				"x-goog-resource-state": z.string().max(40),
			}),
		},
		responses: {
			200: { description: "Taken: a `sync` message only confirms the channel, `exists` syncs the calendar" },
			404: jsonResponse(Detail, "No channel with this id and token"),
		},
	}),
	async (c) => {
		const headers = c.req.valid("header");
		const row = await notifiedConnection(c.env, "google", headers["x-goog-channel-id"], headers["x-goog-channel-token"] ?? "");
		if (!row) return c.json({ detail: "Unknown notification channel" }, 404);
		if (headers["x-goog-resource-state"] !== "sync") syncLater(c, syncOnNotification(c.env, row));
		return c.body(null, 200);
	},
);

const GraphNotification = z.object({ subscriptionId: z.string().max(200), clientState: z.string().max(256).optional() }).passthrough();

calendarOauthRoutes.openapi(
	createRoute({
		method: "post",
		path: "/calendars/push/microsoft",
		request: { query: z.object({ validationToken: z.string().max(2048).optional() }) },
		responses: {
			200: {
				content: { "text/plain": { schema: z.string() } },
				description: "The validation handshake: validationToken echoed as text/plain",
			},
			202: { description: "Taken: each notification with its subscription's clientState syncs that calendar" },
			400: jsonResponse(Detail, "Not a change notification"),
		},
	}),
	async (c) => {
		const { validationToken } = c.req.valid("query");
		if (validationToken !== undefined) return c.text(validationToken, 200, { "x-content-type-options": "nosniff" });
		const parsed = z.object({ value: z.array(GraphNotification).max(1000) }).safeParse(await c.req.json().catch(() => null));
		if (!parsed.success) return c.json({ detail: "Not a Graph change notification: a body {value: [...]} was expected" }, 400);
		const seen = new Set<string>();
		for (const note of parsed.data.value) {
			if (seen.has(note.subscriptionId)) continue;
			seen.add(note.subscriptionId);
			const row = await notifiedConnection(c.env, "microsoft", note.subscriptionId, note.clientState ?? "");
			if (row) syncLater(c, syncOnNotification(c.env, row));
		}
		return c.body(null, 202);
	},
);
