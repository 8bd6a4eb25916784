/**
 * The events of a signed-in calendar for one sync, in the shape the ICS import gives (so the one
 * reconcile in sync.ts makes the plans): only events with a meeting link (and cancellations).
 * A full listing names every event of the window, so one missing is gone; an incremental one
 * (from the stored cursor) names only changes, so every other known event is left as it is
 * (`unread`, as for a feed whose import ran out of budget).
 */
import type { CalendarConnectionRow } from "../../db/schema";
import type { Env } from "../../env";
import { setting } from "../../settings/deployment-defaults";
import { eventMappingsOf } from "../calendar-store";
import type { FeedImport } from "../ics-import";
import { ProviderFailure, SignInAgain } from "./provider-http";
import { providerOf } from "./providers";
import { withAccessToken } from "./tokens";

export type ProviderImport = (FeedImport & { ok: true; cursor: string | null }) | { ok: false; error: string };

export async function importFromProvider(env: Env, connection: CalendarConnectionRow, now: Date): Promise<ProviderImport> {
	const provider = providerOf(connection.kind);
	if (!provider) return { ok: false, error: "This calendar's provider is not known to this deployment" };
	const missing = provider.missingSetting(env);
	if (missing) return { ok: false, error: `${provider.label} is not configured on this deployment (${missing} is not set)` };
	try {
		const listing = await withAccessToken(env, connection, provider, (token) =>
			provider.listEvents(env, token, connection.syncCursor, {
				now,
				horizonMs: setting(env, "CALENDAR_IMPORT_HORIZON_DAYS") * 24 * 3600_000,
				account: connection.account,
			}),
		);
		const unread = new Set<string>();
		if (!listing.full) {
			const changed = new Set(listing.events.map((e) => e.uid));
			for (const known of await eventMappingsOf(env, connection.id)) if (!changed.has(known.uid)) unread.add(known.uid);
		}
		const events = listing.events.filter((e) => e.cancelled || e.link !== null);
		return { ok: true, events, warning: null, unread, cursor: listing.cursor };
	} catch (err) {
		if (err instanceof SignInAgain || err instanceof ProviderFailure) return { ok: false, error: err.message };
		throw err;
	}
}
