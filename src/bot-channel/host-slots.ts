/**
 * Raw SQL store (a claim counts and takes a slot in one UPDATE … RETURNING over a table drizzle does not mirror).
 * A bot host claims at most the free slots it last reported (docs/bot-fleet.md#host-credentials):
 * each claim takes one of them until the host's next report, and a claim beyond them, or from a
 * host with no recent report, is refused. So a compromised host, with its own credential, takes
 * no more meetings than it said it had room for, and it pulls no more tickets than that either.
 */
import type { Env } from "../env";
import { HOST_REPORT_FRESH_MS } from "./fleet-store";

/** What a host may still claim: its last fresh report's `free`, less the claims made since. */
const CLAIMABLE = "json_extract(report, '$.free') - claims_since_report";

/** Slots the host may still claim now; 0 without a report within HOST_REPORT_FRESH_MS. */
export async function claimableSlots(env: Env, hostId: string, now: number): Promise<number> {
	const row = await env.DB.prepare(`SELECT ${CLAIMABLE} AS n FROM bot_hosts WHERE host_id = ? AND reported_at >= ?`)
		.bind(hostId, new Date(now - HOST_REPORT_FRESH_MS).toISOString())
		.first<{ n: number | null }>();
	return Math.max(0, Number(row?.n ?? 0));
}

/**
 * Takes one of the host's reported free slots for a claim, in one statement (two claims at once
 * cannot both take the last one); false when it has none left or no fresh report.
 */
export async function takeClaimSlot(env: Env, hostId: string, now: number): Promise<boolean> {
	const taken = await env.DB.prepare(
		`UPDATE bot_hosts SET claims_since_report = claims_since_report + 1
		 WHERE host_id = ? AND reported_at >= ? AND ${CLAIMABLE} > 0 RETURNING host_id`,
	)
		.bind(hostId, new Date(now - HOST_REPORT_FRESH_MS).toISOString())
		.first();
	return taken !== null;
}

/** Gives the slot back: the room refused the claim, so no bot starts for it. */
export async function releaseClaimSlot(env: Env, hostId: string): Promise<void> {
	await env.DB.prepare("UPDATE bot_hosts SET claims_since_report = max(0, claims_since_report - 1) WHERE host_id = ?").bind(hostId).run();
}
