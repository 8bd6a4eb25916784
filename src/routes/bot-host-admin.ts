import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../app-env";
import { HostId } from "../bot-channel/fleet";
import { forgetHostReport } from "../bot-channel/fleet-store";
import { listHostCredentials, mintHostCredential, revokeHostCredential, storeHostCredential } from "../bot-channel/host-credentials";
import { ApiError, notFound, zodFieldErrors } from "../errors";
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
	await storeHostCredential(c.env, host_id, credential, createdAt);
	return c.json({ host_id, created_at: createdAt, credential }, 201);
});

botHostAdminRoutes.get("/admin/bot-hosts", async (c) => {
	const query = Listing.safeParse(c.req.query());
	if (!query.success) throw new ApiError(422, zodFieldErrors(query.error, "query"));
	return c.json(await listHostCredentials(c.env, query.data.limit, query.data.offset), 200);
});

/** Revokes at once: the host's next claim or report is refused, and its last report leaves the metrics. */
botHostAdminRoutes.delete("/admin/bot-hosts/:host_id", async (c) => {
	const hostId = c.req.param("host_id");
	if (!(await revokeHostCredential(c.env, hostId))) throw notFound("Bot host not found");
	await forgetHostReport(c.env, hostId);
	return c.body(null, 204);
});
