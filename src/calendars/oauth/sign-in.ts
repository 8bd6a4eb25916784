/**
 * Signing into a calendar (docs/api.md#calendars-you-sign-into): the authorization code flow
 * with PKCE (RFC 7636, S256). The start stores the state (as its SHA-256: single use, bound to
 * the user who started, ten minutes) with the sealed code verifier and what the connection is to
 * be, and binds it to the browser that started it with a cookie (so a sign-in link handed to
 * someone else cannot attach their calendar to the sender's account); the browser comes back to the callback from the provider, which trades the code (with the
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
): Promise<{ authorization_url: string; state: string; cookie: BrowserCookie }> {
	const state = randomSecret(32);
	const verifier = randomSecret(48);
	const browser = randomSecret(24);
	const stateHash = await sha256Hex(state);
	await insertSignInState(env, {
		stateHash,
		browserHash: await sha256Hex(browser),
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
	return {
		authorization_url: provider.authorizationUrl(env, { redirectUri: request.redirectUri, state, challenge }),
		state,
		cookie: { name: browserCookieName(stateHash), value: browser },
	};
}

export interface BrowserCookie {
	name: string;
	value: string;
}

/** One cookie per sign-in under way, so two started side by side do not undo each other. */
const browserCookieName = (stateHash: string) => `calendar_sign_in_${stateHash.slice(0, 12)}`;

/** The cookie's Set-Cookie value: sent back only to the callback, for the ten minutes the state lives. */
export function browserCookieHeader(cookie: BrowserCookie, secure: boolean, maxAgeS = STATE_TTL_MS / 1000): string {
	return `${cookie.name}=${cookie.value}; Path=${CALLBACK_PATH}; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}

/** The name of the cookie a callback with this state must bring (to clear it, too). */
export async function browserCookieFor(state: string): Promise<string> {
	return browserCookieName(await sha256Hex(state));
}

export type SignInOutcome = { redirect: string } | { status: 400; page: string };

/** `return_to` with a marker the dashboard reads: `calendar=<id>` or `calendar_error=<code>`. */
function back(returnTo: string, key: "calendar" | "calendar_error", value: string): SignInOutcome {
	return { redirect: `${returnTo}${returnTo.includes("?") ? "&" : "?"}${key}=${encodeURIComponent(value)}` };
}

const STALE_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Calendar sign-in</title></head>
<body><h1>This calendar sign-in cannot be finished</h1>
<p>The sign-in link has expired (it lasts ten minutes) or was already used. Start again from the Calendars page of the dashboard.</p></body></html>`;

const OTHER_BROWSER_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Calendar sign-in</title></head>
<body><h1>This calendar sign-in was started in another browser</h1>
<p>For your safety a calendar is connected only in the browser that asked for it. Start again from the Calendars page of the dashboard, in this browser.</p></body></html>`;

/** `browser`: the value of the sign-in's cookie the browser brought (browserCookieFor names it), if any. */
export async function finishSignIn(
	env: Env,
	query: { code?: string; state?: string; error?: string },
	browser: string | undefined,
	now: Date,
): Promise<SignInOutcome> {
	if (!query.state) return { status: 400, page: STALE_PAGE };
	const row = await takeSignInState(env, await sha256Hex(query.state));
	if (!row || row.expiresAt <= now.toISOString()) return { status: 400, page: STALE_PAGE };
	if (!browser || (await sha256Hex(browser)) !== row.browserHash) return { status: 400, page: OTHER_BROWSER_PAGE };
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
		account: granted.account?.slice(0, 320) ?? null,
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
