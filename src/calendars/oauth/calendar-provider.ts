/**
 * One adapter per calendar provider you sign into (google.ts, microsoft.ts), as the bot host
 * has one driver per platform: the sign-in (authorization code with PKCE), the token refresh, the
 * event listing with its sync cursor, change notifications and what disconnecting undoes.
 */
import type { Env } from "../../env";
import type { ImportedEvent } from "../ics-import";
import type { TokenSet } from "./provider-http";

export type ProviderId = "google" | "microsoft";
export const PROVIDER_IDS: readonly ProviderId[] = ["google", "microsoft"];

/** What a listing is asked for: the window a full listing covers, and the account whose events are "mine". */
export interface ListingWindow {
	now: Date;
	horizonMs: number;
	account: string | null;
}

export interface EventListing {
	events: ImportedEvent[];
	/** The cursor the next sync starts from (Google nextSyncToken, Graph @odata.deltaLink). */
	cursor: string | null;
	/** true: every event of the window is listed, so one not listed is gone; false: only changes are. */
	full: boolean;
}

export interface PushChannel {
	channelId: string;
	/** Google's resourceId (channels.stop needs it); null for Graph. */
	resourceId: string | null;
	expiresAt: Date;
}

/** What stopping or renewing a channel needs to know of it. */
export interface KnownChannel {
	channelId: string;
	resourceId: string | null;
}

export interface CalendarProvider {
	id: ProviderId;
	/** The provider as people name it, for messages. */
	label: string;
	/** The first setting this deployment lacks for the provider, or null when it is configured. */
	missingSetting(env: Env): string | null;
	authorizationUrl(env: Env, request: { redirectUri: string; state: string; challenge: string }): string;
	exchangeCode(
		env: Env,
		grant: { code: string; verifier: string; redirectUri: string },
		now: number,
	): Promise<{ tokens: TokenSet; account: string | null }>;
	/** A fresh token set; throws SignInAgain when the refresh token is refused. */
	refresh(env: Env, refreshToken: string, now: number): Promise<TokenSet>;
	/** Events from `cursor` on (all of the window when null or when the provider says the cursor expired). */
	listEvents(env: Env, accessToken: string, cursor: string | null, window: ListingWindow): Promise<EventListing>;
	/** A channel that notifies `address` of changes, presenting `secret`; `current`, when given, is replaced or renewed. */
	watch(
		env: Env,
		accessToken: string,
		request: { address: string; secret: string; current: KnownChannel | null },
		now: Date,
	): Promise<PushChannel>;
	stopWatch(env: Env, accessToken: string, channel: KnownChannel): Promise<void>;
	/** Undoes the grant where the provider offers it (disconnect). */
	revoke(env: Env, tokens: TokenSet): Promise<void>;
}
