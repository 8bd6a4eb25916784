import type { Context } from "hono";
import { Hono } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env";
import { ClaimRequest } from "../bot-channel/fleet";
import { credentialHost, requireSameHost } from "../bot-channel/host-credentials";
import { releaseClaimSlot, takeClaimSlot } from "../bot-channel/host-slots";
import { spawnTicketSigned } from "../bot-channel/spawn-ticket";
import { ApiError, zodFieldErrors } from "../errors";
import { meetingRoom } from "../objects";

/**
 * The bot fleet's claim route (docs/bot-fleet.md#how-a-bot-is-placed): a host, with its own
 * credential, presents the spawn ticket it pulled and claims that attempt from the meeting's
 * room. Reports and metrics are in fleet-metrics.ts, credentials in bot-host-admin.ts.
 */
export const botFleetRoutes = new Hono<AppEnv>();

/** A JSON body checked against its schema: 422 with field errors otherwise. */
export async function fleetBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.infer<S>> {
	const value: unknown = await c.req.json().catch(() => undefined);
	if (value === undefined) throw new ApiError(422, [{ loc: ["body"], msg: "a JSON body is required", type: "json_invalid" }]);
	const parsed = schema.safeParse(value);
	if (!parsed.success) throw new ApiError(422, zodFieldErrors(parsed.error, "body"));
	return parsed.data;
}

/** Why a claim beyond the host's reported slots is refused (429: the ticket goes back for another host). */
export const SLOTS_REFUSAL =
	"This bot host has no free slot left of those it last reported (or no report in the last 60 s): it may claim again after its next report";

/**
 * A host claims one attempt of a meeting with its ticket: the first claimer of the ticket the
 * room is waiting on gets the spawn request, anyone else 409. A ticket the Worker did not sign,
 * or one for another meeting or attempt than the claim names, is refused (403) before the room.
 * A host claims no more than the free slots it last reported (429 beyond them, src/bot-channel/host-slots.ts).
 */
botFleetRoutes.post("/internal/bot-hosts/claims", async (c) => {
	const hostId = await credentialHost(c.env, c.req.header("authorization"));
	const claim = await fleetBody(c, ClaimRequest);
	requireSameHost(hostId, claim.host_id);
	const { ticket } = claim;
	if (ticket.meeting_id !== claim.meeting_id || ticket.attempt !== claim.attempt || !(await spawnTicketSigned(c.env.SECRETS_KEY, ticket))) {
		throw new ApiError(403, `The spawn ticket is not a valid ticket for meeting ${claim.meeting_id} attempt ${claim.attempt}`);
	}
	// Past its deadline the room no longer waits for this ticket, even if its placement timer has not fired yet.
	if (!(Date.parse(ticket.not_after) > Date.now())) {
		return c.json({ detail: `the spawn ticket expired at ${ticket.not_after}`, reason: "stale" }, 409);
	}
	// Within the free slots the host last reported, else refused and logged (no ticket, no credential).
	if (!(await takeClaimSlot(c.env, hostId, Date.now()))) {
		console.warn("bot host claim refused: beyond the free slots it last reported", hostId, claim.meeting_id, claim.attempt);
		return c.json({ detail: SLOTS_REFUSAL, reason: "slots" }, 429, { "Retry-After": "5" });
	}
	const outcome = await meetingRoom(c.env, claim.meeting_id)
		.claim(claim)
		.catch(async (err: unknown) => {
			await releaseClaimSlot(c.env, hostId);
			throw err;
		});
	if (!outcome.ok) {
		await releaseClaimSlot(c.env, hostId);
		return c.json({ detail: outcome.detail, reason: outcome.reason }, 409);
	}
	return c.json(outcome.spawn, 200);
});
