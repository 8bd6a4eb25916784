/**
 * Change notifications of signed-in calendars: a Google push channel (events.watch) or a Graph
 * subscription per connection, made after a sync when the deployment has a public https address
 * (PUBLIC_BASE_URL) and renewed by the sync that finds it within a day of its end. The channel
 * token (Google) or clientState (Graph) is a fresh secret kept only as its SHA-256; a notification
 * that presents it makes its connection sync. Without a public https address there is no channel,
 * and the scheduled background sync (background-sync.ts) polls, as it does for every connection.
 */
import type { CalendarConnectionRow } from "../../db/schema";
import type { Env } from "../../env";
import { errorText } from "../../error-text";
import { sha256Hex } from "../../sha256";
import type { ProviderId } from "./calendar-provider";
import { savePushChannel } from "./oauth-store";
import { randomSecret } from "./provider-http";
import { providerOf } from "./providers";
import { withAccessToken } from "./tokens";

export const PUSH_PATHS: Record<ProviderId, string> = {
	google: "/calendars/push/google",
	microsoft: "/calendars/push/microsoft",
};

const RENEW_AHEAD_MS = 24 * 3600_000;

/** The origin providers can notify: PUBLIC_BASE_URL when it is https (providers call only https), else null. */
export function pushOrigin(env: Env): string | null {
	try {
		const url = new URL(env.PUBLIC_BASE_URL?.trim() ?? "");
		return url.protocol === "https:" ? url.origin : null;
	} catch {
		return null;
	}
}

/** Makes or renews the connection's channel when it needs it; a failure is logged, and polling goes on. */
export async function keepPushChannel(env: Env, connection: CalendarConnectionRow, now: Date): Promise<void> {
	const provider = providerOf(connection.kind);
	const origin = pushOrigin(env);
	if (!provider || !origin) return;
	const expires = connection.pushExpiresAt ? Date.parse(connection.pushExpiresAt) : 0;
	if (connection.pushChannelId && expires - now.getTime() > RENEW_AHEAD_MS) return;
	const secret = randomSecret(24);
	const current = connection.pushChannelId ? { channelId: connection.pushChannelId, resourceId: connection.pushResourceId } : null;
	try {
		const channel = await withAccessToken(env, connection, provider, (token) =>
			provider.watch(env, token, { address: `${origin}${PUSH_PATHS[provider.id]}`, secret, current }, now),
		);
		// A Graph renewal keeps its subscription, and the clientState it was made with.
		const renewed = channel.channelId === connection.pushChannelId;
		await savePushChannel(env, connection.id, {
			pushChannelId: channel.channelId,
			pushResourceId: channel.resourceId,
			pushExpiresAt: channel.expiresAt.toISOString(),
			pushSecretHash: renewed ? connection.pushSecretHash : await sha256Hex(secret),
		});
	} catch (err) {
		console.error("calendar push channel not set up; polling goes on", connection.id, errorText(err));
	}
}

/** Stops the connection's channel (disconnect); a failure is logged, the disconnect goes on. */
export async function stopPushChannel(env: Env, connection: CalendarConnectionRow): Promise<void> {
	const provider = providerOf(connection.kind);
	if (!provider || !connection.pushChannelId) return;
	const channel = { channelId: connection.pushChannelId, resourceId: connection.pushResourceId };
	try {
		await withAccessToken(env, connection, provider, (token) => provider.stopWatch(env, token, channel));
	} catch (err) {
		console.error("calendar push channel not stopped", connection.id, errorText(err));
	}
}
