/**
 * `data.placement`, declared once (docs/api.md#waiting-for-a-bot-host): a meeting waiting for a
 * bot host says since when, until when, and why. Its user sees their own wait and a count, never
 * a host's id, load or words (those are for operators). `/ws` and REST show it as it is. Imports only zod.
 */
import { z } from "zod";

/** Why a meeting still has no bot: no host reports, every host refuses work, or a host has room but has not pulled the ticket. */
export const PlacementReason = z.enum(["no_host_reported", "all_hosts_busy", "not_yet_pulled"]);
export type PlacementReason = z.infer<typeof PlacementReason>;

export const Placement = z.object({
	since: z.string().describe("When the current attempt began waiting (POST /bots, auto-join, or a respawn)"),
	deadline: z.string().describe("When the meeting fails `no_bot_capacity` (an auto-join goes back to its plan) unless a host claims it"),
	attempt: z.number().int(),
	reason: PlacementReason,
	detail: z.string().describe('The reason in generic words, e.g. "all bot hosts are busy"; never a host\'s name, load or words'),
	hosts_reporting: z.number().int().describe("How many bot hosts reported in the last 60 s"),
});
export type Placement = z.infer<typeof Placement>;
