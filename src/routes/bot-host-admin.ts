import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { HostId } from "../bot-channel/fleet";
import { mintHostCredential } from "../bot-channel/host-credentials";
import { ApiError, notFound, zodFieldErrors } from "../errors";
import { hashApiKey } from "../gateway/api-keys";
import { fleetBody } from "./bot-fleet";

/**
 * Bot host credentials, behind `X-Admin-API-Key` (checked by the gateway): one per host, the
 * clear credential shown once when minted and stored only as its hash (docs/bot-fleet.md#host-credentials).
 */
export const botHostAdminRoutes = new Hono<AppEnv>();

const Listing = z.object({
	limit: z.coerce.number().int().min(1).max(500).default(100),
	offset: z.coerce.number().int().min(0).default(0),
});

/** Mints the host's credential; minting again for the same host replaces (rotates) it. */
botHostAdminRoutes.post("/admin/bot-hosts", async (c) => {
	const { host_id } = await fleetBody(c, z.strictObject({ host_id: HostId }));
	const credential = mintHostCredential();
	const createdAt = new Date().toISOString();
	await c.env.DB.prepare(
		`INSERT INTO bot_host_credentials (host_id, credential_hash, created_at) VALUES (?, ?, ?)
		 ON CONFLICT (host_id) DO UPDATE SET credential_hash = excluded.credential_hash, created_at = excluded.created_at`,
	)
		.bind(host_id, await hashApiKey(credential), createdAt)
		.run();
	return c.json({ host_id, created_at: createdAt, credential }, 201);
});

botHostAdminRoutes.get("/admin/bot-hosts", async (c) => {
	const query = Listing.safeParse(c.req.query());
	if (!query.success) throw new ApiError(422, zodFieldErrors(query.error, "query"));
	const { results } = await c.env.DB.prepare("SELECT host_id, created_at FROM bot_host_credentials ORDER BY host_id LIMIT ? OFFSET ?")
		.bind(query.data.limit, query.data.offset)
		.all<{ host_id: string; created_at: string }>();
	return c.json(results, 200);
});

/** Revokes at once: the host's next claim or report is refused, and its last report leaves the metrics. */
botHostAdminRoutes.delete("/admin/bot-hosts/:host_id", async (c) => {
	const hostId = c.req.param("host_id");
	const revoked = await c.env.DB.prepare("DELETE FROM bot_host_credentials WHERE host_id = ? RETURNING host_id").bind(hostId).first();
	if (!revoked) throw notFound("Bot host not found");
	await c.env.DB.prepare("DELETE FROM bot_hosts WHERE host_id = ?").bind(hostId).run();
	return c.body(null, 204);
});
