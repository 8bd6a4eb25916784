import type { Context } from "hono";
import type { AppEnv } from "../app-env";
import { invalidField } from "../errors";

/** `Last-Event-ID` (or `?last_event_id=`, for clients that cannot set headers): an integer cursor. */
export function lastEventId(c: Context<AppEnv>): number | null {
	const header = c.req.header("last-event-id");
	const raw = header ?? c.req.query("last_event_id");
	if (raw === undefined || raw.trim() === "") return null;
	const value = Number(raw.trim());
	if (!Number.isSafeInteger(value) || value < 0) {
		throw invalidField(
			[header === undefined ? "query" : "header", header === undefined ? "last_event_id" : "Last-Event-ID"],
			"must be a non-negative integer",
		);
	}
	return value;
}
