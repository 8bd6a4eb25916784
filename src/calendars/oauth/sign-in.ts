/**
 * Signing into a calendar (docs/api.md#calendars-you-sign-into): the authorization code flow
 * with PKCE (RFC 7636, S256). The start stores the state (as its SHA-256: single use, bound to
 * the user who started, ten minutes) with the sealed code verifier and what the connection is to
 * be; the browser comes back to the callback from the provider, which trades the code (with the
 * verifier and the deployment's client secret) for tokens, stores them sealed, makes the
 * connection, syncs it at once and sends the browser back to the dashboard path it came from.
 */
import type { Env } from "../../env";
import { errorText } from "../../error-text";
import { ApiError } from "../../errors";
import { setting } from "../../settings/deployment-defaults";
import { seal, unseal } from "../../settings/secret-box";
import { sha256Hex } from "../../sha256";
import { createSignedInConnection } from "../connections";
import { syncConnection, takeSyncLease } from "../sync";
import type { CalendarProvider } from "./calendar-provider";
import { insertSignInState, takeSignInState } from "./oauth-store";
import { pkceChallenge, randomSecret } from "./provider-http";
import { providerOf } from "./providers";
import { sealTokens } from "./tokens";

export const CALLBACK_PATH = "/calendars/oauth/callback";
const STATE_TTL_MS = 10 * 60_000;

export interface SignInRequest {
	name: string | null;
	autoJoin: boolean;
	botName: string | null;
	returnTo: string;
}

/** The provider, configured, or the 503 that names the setting it lacks. */
export function configuredProvider(env: Env, id: string): CalendarProvider {
	const provider = providerOf(id);
	if (!provider) throw new ApiError(404, `Unknown calendar provider "${id.slice(0, 40)}"; use google or microsoft`);
	const missing = provider.missingSetting(env);
	if (missing) throw new ApiError(503, `${provider.label} sign-in is not configured on this deployment: set ${missing}`);
	return provider;
}

export async function startSignIn(
	env: Env,
	userId: number,
	provider: CalendarProvider,
	request: SignInRequest & { redirectUri: string },
	now: Date,
): Promise<{ authorization_url: string; state: string }> {
	const state = randomSecret(32);
	const verifier = randomSecret(48);
	await insertSignInState(env, {
		stateHash: await sha256Hex(state),
		userId,
		provider: provider.id,
		verifierSealed: await seal(env.SECRETS_KEY, verifier),
		redirectUri: request.redirectUri,
		name: request.name,
		autoJoin: request.autoJoin,
		botName: request.botName,
		returnTo: request.returnTo,
		createdAt: now.toISOString(),
		expiresAt: new Date(now.getTime() + STATE_TTL_MS).toISOString(),
	});
	const challenge = await pkceChallenge(verifier);
	return { authorization_url: provider.authorizationUrl(env, { redirectUri: request.redirectUri, state, challenge }), state };
}

export type SignInOutcome = { redirect: string } | { status: 400; page: string };

/** `return_to` with a marker the dashboard reads: `calendar=<id>` or `calendar_error=<code>`. */
function back(returnTo: string, key: "calendar" | "calendar_error", value: string): SignInOutcome {
	return { redirect: `${returnTo}${returnTo.includes("?") ? "&" : "?"}${key}=${encodeURIComponent(value)}` };
}

const STALE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Calendar sign-in</title></head>
<body><h1>This calendar sign-in cannot be finished</h1>
<p>The sign-in link has expired (it lasts ten minutes) or was already used. Start again from the Calendars page of the dashboard.</p></body></html>`;

export async function finishSignIn(env: Env, query: { code?: string; state?: string; error?: string }, now: Date): Promise<SignInOutcome> {
	if (!query.state) return { status: 400, page: STALE_PAGE };
	const row = await takeSignInState(env, await sha256Hex(query.state));
	if (!row || row.expiresAt <= now.toISOString()) return { status: 400, page: STALE_PAGE };
	if (query.error) return back(row.returnTo, "calendar_error", query.error === "access_denied" ? "access_denied" : "provider_error");
	if (!query.code) return back(row.returnTo, "calendar_error", "provider_error");
	const provider = providerOf(row.provider);
	if (!provider || provider.missingSetting(env)) return back(row.returnTo, "calendar_error", "not_configured");

	let granted: Awaited<ReturnType<CalendarProvider["exchangeCode"]>>;
	try {
		const verifier = await unseal(env.SECRETS_KEY, row.verifierSealed);
		granted = await provider.exchangeCode(env, { code: query.code, verifier, redirectUri: row.redirectUri }, Date.now());
	} catch (err) {
		console.error("calendar sign-in: code exchange failed", provider.id, errorText(err));
		return back(row.returnTo, "calendar_error", "sign_in_failed");
	}
	const connection = await createSignedInConnection(env, row.userId, now, {
		kind: provider.id,
		name: row.name ?? (granted.account ? `${provider.label} (${granted.account})` : provider.label).slice(0, 100),
		account: granted.account,
		oauthTokensSealed: await sealTokens(env, granted.tokens),
		autoJoin: row.autoJoin,
		botName: row.botName,
	});
	if (!connection) {
		await provider.revoke(env, granted.tokens).catch(() => undefined);
		return back(row.returnTo, "calendar_error", "too_many_calendars");
	}
	// A new calendar syncs at once; what the sync finds wrong is in its last_error.
	if (setting(env, "CALENDAR_SYNC_ENABLED") && (await takeSyncLease(env, connection.id))) await syncConnection(env, connection, { now });
	return back(row.returnTo, "calendar", connection.id);
}
