/**
 * A change notification from a provider (POST /calendars/push/google, /calendars/push/microsoft):
 * the connection whose channel it names, when it presents that channel's secret (Google's channel
 * token, Graph's clientState; push.ts keeps only their SHA-256), then a sync of it.
 */
import type { CalendarConnectionRow } from "../../db/schema";
import type { Env } from "../../env";
import { sha256Hex } from "../../sha256";
import { syncConnection, takeSyncLease } from "../sync";
import type { ProviderId } from "./calendar-provider";
import { connectionByChannel, syncSoon } from "./oauth-store";

/** The connection a notification is for, when it presents the channel's secret; null otherwise. */
export async function notifiedConnection(
	env: Env,
	provider: ProviderId,
	channelId: string,
	secret: string,
): Promise<CalendarConnectionRow | null> {
	if (!channelId || !secret) return null;
	const row = await connectionByChannel(env, channelId);
	if (!row || row.kind !== provider || !row.enabled || !row.pushSecretHash) return null;
	return (await sha256Hex(secret)) === row.pushSecretHash ? row : null;
}

/** A notification's sync: now, unless one is running, which then reads the change itself or leaves it to the next. */
export async function syncOnNotification(env: Env, row: CalendarConnectionRow): Promise<void> {
	if (!(await takeSyncLease(env, row.id))) {
		await syncSoon(env, row.id);
		return;
	}
	await syncConnection(env, row, { now: new Date() });
}
