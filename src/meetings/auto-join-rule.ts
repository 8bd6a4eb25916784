import type { MeetingRow } from "../db/schema";

/**
 * When a plan may join on its own, written once: the room's auto-join, the API's and the
 * calendar's arming, and the calendar sweep's SQL all ask here.
 */

/** Join about this long before the planned start. */
export const JOIN_LEAD_MS = 60_000;
/** A plan this far past its start is stale: skipped, never joined late (docs/status-machine.md#auto-join). */
export const LATE_LIMIT_MS = 10 * 60_000;

type PlanFields = Pick<MeetingRow, "status" | "autoJoin" | "platform" | "nativeMeetingId" | "scheduledAt">;

/** A link a bot can be sent to. */
export const hasJoinableLink = (row: Pick<MeetingRow, "platform" | "nativeMeetingId">) =>
	row.platform !== "unknown" && row.nativeMeetingId !== null;

/** A scheduled plan with a link and auto-join on: it joins at its time (unless stale by then). */
export const mayAutoJoin = (row: PlanFields) =>
	row.status === "scheduled" && row.autoJoin && row.scheduledAt !== null && hasJoinableLink(row);

/** Past the late limit: the plan is skipped instead of joined. */
export function isStale(scheduledAt: string | null, nowMs: number): boolean {
	const start = Date.parse(scheduledAt ?? "");
	return !Number.isFinite(start) || nowMs > start + LATE_LIMIT_MS;
}
