/**
 * What the local calendar providers (google-calendar-server.ts, graph-calendar-server.ts) share as
 * OAuth 2.0 authorization servers: authorization codes bound to the client, redirect URI and PKCE
 * challenge (RFC 7636: S256 only, the verifier checked at the token endpoint), access tokens that
 * expire after `accessTokenLifetimeS` (short, so clients must refresh), refresh tokens, and the
 * record of what clients asked, which the tests read through each server's `/__` control paths.
 *
 * Plain Node with no imports beyond node:, as the other servers here.
 */
import { createHash, randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";

export interface ClientRegistration {
	clientId: string;
	clientSecret: string;
	redirectUris: string[];
	/** Seconds an access token lives. */
	accessTokenLifetimeS: number;
}

interface CodeGrant {
	account: string;
	clientId: string;
	redirectUri: string;
	challenge: string;
	scope: string;
	expiresAt: number;
}

export type CodeCheck =
	| { ok: true; account: string; scope: string }
	| { ok: false; reason: "code" | "redirect_uri" | "verifier_missing" | "verifier" };

const token = (prefix: string) => `${prefix}${randomBytes(24).toString("base64url")}`;

export class AuthorizationServer {
	private codes = new Map<string, CodeGrant>();
	private access = new Map<string, { account: string; expiresAt: number }>();
	private refresh = new Map<string, { account: string; scope: string }>();
	/** Seconds an account's access tokens live, where a test set its own (POST /__accounts/:a/token-lifetime). */
	readonly lifetimes = new Map<string, number>();
	/** What was done, per account, for the tests to assert. */
	readonly log = new Map<string, { refreshes: number; revocations: number; exchanges: number }>();

	constructor(readonly client: ClientRegistration) {}

	private entry(account: string) {
		let e = this.log.get(account);
		if (!e) {
			e = { refreshes: 0, revocations: 0, exchanges: 0 };
			this.log.set(account, e);
		}
		return e;
	}

	/** Whether the client presented its registered secret (in the form body, or HTTP Basic). */
	clientAuthenticated(form: URLSearchParams, req: IncomingMessage): boolean {
		const basic = req.headers.authorization?.match(/^Basic (.+)$/)?.[1];
		const [id, secret] = basic
			? Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent)
			: [form.get("client_id"), form.get("client_secret")];
		return id === this.client.clientId && secret === this.client.clientSecret;
	}

	issueCode(grant: Omit<CodeGrant, "expiresAt">): string {
		const code = token("code-");
		// Codes are short-lived and single use (RFC 6749 4.1.2).
		this.codes.set(code, { ...grant, expiresAt: Date.now() + 10 * 60_000 });
		return code;
	}

	redeemCode(form: URLSearchParams): CodeCheck {
		const code = form.get("code") ?? "";
		const grant = this.codes.get(code);
		this.codes.delete(code);
		if (!grant || grant.expiresAt < Date.now() || grant.clientId !== form.get("client_id")) return { ok: false, reason: "code" };
		if (grant.redirectUri !== form.get("redirect_uri")) return { ok: false, reason: "redirect_uri" };
		const verifier = form.get("code_verifier");
		if (!verifier) return { ok: false, reason: "verifier_missing" };
		if (createHash("sha256").update(verifier).digest("base64url") !== grant.challenge) return { ok: false, reason: "verifier" };
		this.entry(grant.account).exchanges++;
		return { ok: true, account: grant.account, scope: grant.scope };
	}

	issueTokens(account: string, scope: string, withRefresh: boolean) {
		const accessToken = token("at-");
		const lifetime = this.lifetimes.get(account) ?? this.client.accessTokenLifetimeS;
		this.access.set(accessToken, { account, expiresAt: Date.now() + lifetime * 1000 });
		const refreshToken = withRefresh ? token("rt-") : null;
		if (refreshToken) this.refresh.set(refreshToken, { account, scope });
		return { accessToken, refreshToken, expiresIn: lifetime };
	}

	/** The grant behind a refresh token; `rotate` retires it (the caller issues the new one). */
	useRefreshToken(refreshToken: string, rotate: boolean): { account: string; scope: string } | null {
		const grant = this.refresh.get(refreshToken);
		if (!grant) return null;
		if (rotate) this.refresh.delete(refreshToken);
		this.entry(grant.account).refreshes++;
		return grant;
	}

	/** The account of a Bearer access token still alive; null when missing, unknown or expired. */
	bearerAccount(req: IncomingMessage): string | null {
		const presented = req.headers.authorization?.match(/^Bearer (.+)$/)?.[1] ?? "";
		const grant = this.access.get(presented);
		if (grant && grant.expiresAt > Date.now()) return grant.account;
		if (grant) this.unauthorized.set(grant.account, (this.unauthorized.get(grant.account) ?? 0) + 1);
		return null;
	}

	/** Revokes a token and, for a refresh token, the whole grant: every token of the account. */
	revoke(presented: string): boolean {
		const grant = this.refresh.get(presented) ?? this.access.get(presented);
		if (!grant) return false;
		this.revokeAccount(grant.account);
		this.entry(grant.account).revocations++;
		return true;
	}

	/** The user withdraws the app's access (or it lapses): all the account's tokens stop working. */
	revokeAccount(account: string) {
		for (const [t, g] of this.access) if (g.account === account) this.access.delete(t);
		for (const [t, g] of this.refresh) if (g.account === account) this.refresh.delete(t);
	}

	/** 401s answered to the account's requests (a token presented after it expired). */
	readonly unauthorized = new Map<string, number>();

	/** Every live access token of the account expires now (the test makes a client meet a 401). */
	expireAccess(account: string) {
		for (const g of this.access.values()) if (g.account === account) g.expiresAt = 0;
	}

	stats(account: string) {
		return {
			...this.entry(account),
			unauthorized: this.unauthorized.get(account) ?? 0,
			liveRefreshTokens: [...this.refresh.values()].filter((g) => g.account === account).length,
		};
	}
}

/** An unsigned-looking ID token (header.payload.signature) with the claims the client reads. */
export function idToken(claims: Record<string, unknown>): string {
	const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
	return `${part({ alg: "RS256", typ: "JWT" })}.${part({ iat: Math.floor(Date.now() / 1000), ...claims })}.${randomBytes(16).toString("base64url")}`;
}

export const newId = (bytes = 12) => randomBytes(bytes).toString("hex");

/** Parses `application/x-www-form-urlencoded`; a JSON or missing body gives an empty form. */
export function formOf(raw: string, req: IncomingMessage): URLSearchParams {
	return req.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ? new URLSearchParams(raw) : new URLSearchParams();
}
