/**
 * A signed-in connection's tokens: sealed at rest like every other secret (secret-box.ts), read
 * only to call the provider, refreshed a little before they expire and once more when the
 * provider answers 401 anyway. A refresh token the provider rotates (Microsoft does) replaces the
 * stored one at once; a refused refresh (invalid_grant) is SignInAgain, which the sync reports.
 */
import type { CalendarConnectionRow } from "../../db/schema";
import type { Env } from "../../env";
import { seal, unseal } from "../../settings/secret-box";
import type { CalendarProvider } from "./calendar-provider";
import { saveSealedTokens, sealedTokensOf } from "./oauth-store";
import { ProviderUnauthorized, SignInAgain, type TokenSet } from "./provider-http";

/** How long before its stated expiry an access token is refreshed. */
const REFRESH_MARGIN_MS = 60_000;

export async function sealTokens(env: Env, tokens: TokenSet): Promise<string> {
	return seal(env.SECRETS_KEY, JSON.stringify(tokens));
}

export async function storedTokens(env: Env, row: Pick<CalendarConnectionRow, "oauthTokensSealed">): Promise<TokenSet | null> {
	if (!row.oauthTokensSealed) return null;
	const parsed = JSON.parse(await unseal(env.SECRETS_KEY, row.oauthTokensSealed)) as TokenSet;
	return parsed;
}

async function saveTokens(env: Env, connectionId: string, tokens: TokenSet): Promise<void> {
	await saveSealedTokens(env, connectionId, await sealTokens(env, tokens));
}

async function refreshed(
	env: Env,
	row: CalendarConnectionRow,
	provider: CalendarProvider,
	tokens: TokenSet,
	now: number,
): Promise<TokenSet> {
	if (!tokens.refreshToken) throw new SignInAgain(`${provider.label} gave no lasting sign-in: sign in again to reconnect this calendar`);
	const fresh = await provider.refresh(env, tokens.refreshToken, now);
	const kept: TokenSet = { ...fresh, refreshToken: fresh.refreshToken ?? tokens.refreshToken };
	await saveTokens(env, row.id, kept);
	return kept;
}

/** Calls `use` with a good access token: refreshed before expiry, and once more after a 401. */
export async function withAccessToken<T>(
	env: Env,
	row: CalendarConnectionRow,
	provider: CalendarProvider,
	use: (accessToken: string) => Promise<T>,
): Promise<T> {
	// Read again, not from `row`: an earlier call may have refreshed (and rotated) them since.
	let tokens = await storedTokens(env, { oauthTokensSealed: await sealedTokensOf(env, row.id) });
	if (!tokens) throw new SignInAgain(`This calendar has no ${provider.label} sign-in: sign in again to reconnect it`);
	// Wall-clock time: token expiry is the provider's clock, not a sync's.
	if (tokens.expiresAt - REFRESH_MARGIN_MS <= Date.now()) tokens = await refreshed(env, row, provider, tokens, Date.now());
	try {
		return await use(tokens.accessToken);
	} catch (err) {
		if (!(err instanceof ProviderUnauthorized)) throw err;
		tokens = await refreshed(env, row, provider, tokens, Date.now());
		return use(tokens.accessToken);
	}
}
