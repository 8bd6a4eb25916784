/**
 * What disconnecting a signed-in calendar undoes at the provider before its row goes: the push
 * channel is stopped (Google channels.stop, Graph subscription deleted) and the grant revoked
 * where the provider offers it (Google /revoke; Graph has none for one app, see microsoft.ts).
 * Each step is best effort: a provider that cannot be reached does not keep the calendar.
 */
import type { CalendarConnectionRow } from "../../db/schema";
import type { Env } from "../../env";
import { errorText } from "../../error-text";
import { providerOf } from "./providers";
import { stopPushChannel } from "./push";
import { storedTokens } from "./tokens";

export async function signOut(env: Env, connection: CalendarConnectionRow): Promise<void> {
	const provider = providerOf(connection.kind);
	if (!provider) return;
	await stopPushChannel(env, connection);
	try {
		const tokens = await storedTokens(env, connection);
		if (tokens) await provider.revoke(env, tokens);
	} catch (err) {
		console.error("calendar sign-in not revoked", connection.id, errorText(err));
	}
}
