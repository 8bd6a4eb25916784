/**
 * The bot fleet's wire shapes (docs/bot-fleet.md): how a bot host takes work. The Worker puts a
 * spawn ticket on a queue (Cloudflare Queues, pulled over its HTTP API; `scripts/local-queue.mjs`
 * locally); a host with a free slot pulls it and claims the attempt from the meeting's room,
 * which hands the full spawn request (with the channel token) to the first claimer only.
 * Hosts need no inbound connectivity. Both sides import these schemas.
 */
import { z } from "zod";

/**
 * A queue message: which meeting wants a bot, for which attempt, and until when a host may
 * still take it. No secrets: a queue token can read every queue of its account. The Worker
 * signs it (src/bot-channel/spawn-ticket.ts), and a claim must present it: the room takes
 * only the ticket it published for its current attempt, so a claim cannot be made for a
 * meeting id a host merely guessed.
 */
export const SpawnTicket = z.object({
	meeting_id: z.number().int().positive(),
	/** 1 for the first bot; a respawn after a lost host asks for the next attempt. */
	attempt: z.number().int().positive(),
	/** ISO time after which the room no longer waits for this attempt (its placement deadline). */
	not_after: z.string().max(40),
	/** Random, one per published ticket: the room keeps the id of the one it is waiting on. */
	ticket_id: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, "16-64 base64url characters"),
	/** Hex HMAC-SHA256 over the fields above, with a key only the Worker holds. */
	signature: z.string().regex(/^[0-9a-f]{64}$/, "64 hex digits"),
});
export type SpawnTicket = z.infer<typeof SpawnTicket>;

export const HOST_ID_MAX = 200;
/** A bot host's name: in claims, reports, and the credential minted for it (POST /admin/bot-hosts). */
export const HostId = z
	.string()
	.min(1)
	.max(HOST_ID_MAX)
	.regex(/^[A-Za-z0-9._:-]+$/, "letters, digits and . _ : - only");

/**
 * Body of `POST /internal/bot-hosts/claims` (Bearer: the host's own credential, which names
 * `host_id`). `ticket` is the spawn ticket as pulled from the queue, for this meeting and attempt.
 */
export const ClaimRequest = z.object({
	meeting_id: z.number().int().positive(),
	attempt: z.number().int().positive(),
	host_id: HostId,
	/** The host's software version, recorded with the claim. */
	version: z.string().max(100),
	ticket: SpawnTicket,
});
export type ClaimRequest = z.infer<typeof ClaimRequest>;

/**
 * Why a claim is refused (409 `{detail, reason}`): another host holds this attempt (`taken`), a
 * newer attempt exists (`stale`), or the meeting no longer wants a bot (`ended`). The host acks
 * the queue message either way, so a duplicate delivery is harmless.
 */
export const ClaimRefusalReason = z.enum(["taken", "stale", "ended"]);
export type ClaimRefusalReason = z.infer<typeof ClaimRefusalReason>;

/**
 * What keeps a host from taking work: draining; not ready (no credential, no Chromium…); CPU
 * (pressure, or the bots' measured CPU filling the cores); memory pressure; the load average
 * (where the kernel has no PSI); all slots taken; too little memory or disk for one more bot.
 */
export const HOST_LIMITS = ["draining", "not_ready", "cpu", "memory_pressure", "load", "slots", "memory", "disk"] as const;
export const HostLimit = z.enum(HOST_LIMITS);
export type HostLimit = z.infer<typeof HostLimit>;

/**
 * Body of `POST /internal/bot-hosts/reports` (Bearer: the host's own credential, which names
 * `host_id`), sent every few seconds. For dashboards and autoscaling only: nothing's
 * correctness depends on a report arriving. It names no meetings: the room records which host
 * claimed each, and the metrics token that reads reports has no business knowing them.
 */
export const HostReport = z.object({
	host_id: HostId,
	version: z.string().max(100),
	/** Bots this host may run at once (BOT_HOST_SLOTS). */
	slots: z.number().int().nonnegative(),
	/** Bots in a meeting now, and bots claimed but still starting. */
	running: z.number().int().nonnegative(),
	launching: z.number().int().nonnegative(),
	/** How many more this host would pull now (0 while draining or short of memory). */
	free: z.number().int().nonnegative(),
	draining: z.boolean(),
	mem_available_mb: z.number().nonnegative(),
	load1: z.number().nonnegative(),
	/** Every limit keeping `free` at 0 now (empty while it takes work); absent from older hosts. */
	limited_by: z.array(HostLimit).max(HOST_LIMITS.length).optional(),
	/** Why it takes no work, in words, e.g. "CPU pressure 91% (limit 80%)"; null while it takes work. */
	refusing: z.string().max(500).nullable().optional(),
	/** Linux PSI `some avg10` of CPU and memory, in percent; absent where the kernel has none. */
	cpu_pressure: z.number().min(0).max(100).optional(),
	mem_pressure: z.number().min(0).max(100).optional(),
});
export type HostReport = z.infer<typeof HostReport>;

/** `GET /internal/fleet/metrics` (Bearer FLEET_METRICS_TOKEN): what an autoscaler reads. */
export const FleetMetrics = z.object({
	/** live + unclaimed + due_soon: the bots the fleet should have room for now. */
	bots_needed: z.number().int().nonnegative(),
	/** Meetings with a bot (claimed and not ended). */
	live: z.number().int().nonnegative(),
	/** Meetings waiting for a host to claim them. */
	unclaimed: z.number().int().nonnegative(),
	/** Auto-join plans due within `due_window_s`. */
	due_soon: z.number().int().nonnegative(),
	due_window_s: z.number().int().positive(),
	/** Hosts that reported recently, as they reported. */
	hosts: z.array(HostReport.extend({ reported_at: z.string() })),
});
export type FleetMetrics = z.infer<typeof FleetMetrics>;

/** The verified attempt of a bot channel upgrade, as the Worker hands it to the meeting's room. */
export const BOT_ATTEMPT_HEADER = "x-bot-attempt";
