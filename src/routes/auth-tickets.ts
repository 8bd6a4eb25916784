import { createRoute, z } from "@hono/zod-openapi";
import { hashTicket, mintTicket } from "../gateway/tickets";
import { accountObject } from "../objects";
import { setting } from "../settings/deployment-defaults";
import { ApiErrorBody, jsonResponse, routeModule } from "./openapi-app";

/** Tickets for `/ws` from a browser (docs/dashboard.md#signing-in): POST and DELETE /auth/ticket. */
export const authTicketRoutes = routeModule();

const Ticket = z
	.object({
		ticket: z.string().openapi({ description: "Works once, as `/ws?ticket=`, until `expires_at`; never on a REST route" }),
		expires_at: z.string().openapi({ description: "ISO 8601, `AUTH_TICKET_TTL_S` (60 s) after issue" }),
	})
	.openapi("WsTicket");

const keyErrors = {
	401: jsonResponse(ApiErrorBody, "No valid API key"),
	403: jsonResponse(ApiErrorBody, "The key lacks the bot or tx scope"),
	429: jsonResponse(ApiErrorBody, "The account's request bucket is empty"),
};

authTicketRoutes.openapi(
	createRoute({
		method: "post",
		path: "/auth/ticket",
		description: "A one-use, short-lived ticket for `/ws?ticket=`, bound to the calling key.",
		responses: { 201: jsonResponse(Ticket, "The ticket; only its hash is kept"), ...keyErrors },
	}),
	async (c) => {
		const { userId, tokenId } = c.get("identity");
		const ttlSeconds = Math.max(1, setting(c.env, "AUTH_TICKET_TTL_S"));
		const expiresAt = c.get("clock").now().getTime() + ttlSeconds * 1000;
		const ticket = mintTicket(userId);
		await accountObject(c.env, userId).issueTicket(await hashTicket(ticket), { tokenId, expiresAt });
		return c.json({ ticket, expires_at: new Date(expiresAt).toISOString() }, 201);
	},
);

authTicketRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/auth/ticket",
		description: "Sign-out: every outstanding ticket of the calling key stops working.",
		responses: { 204: { description: "Revoked (also when there were none)" }, ...keyErrors },
	}),
	async (c) => {
		const { userId, tokenId } = c.get("identity");
		await accountObject(c.env, userId).revokeTickets(tokenId);
		return c.body(null, 204);
	},
);
