/**
 * What the calendar providers' adapters share: the token endpoint's form posts, JSON calls with a
 * time limit, the PKCE pair and the errors a sync turns into a connection's `last_error`.
 * Provider addresses are deployment settings (GOOGLE_*_BASE_URL, MICROSOFT_LOGIN_BASE_URL,
 * GRAPH_BASE_URL), never a user's, so they are not passed through the outbound guard; bodies
 * are still read with a cap, since the provider's answer is not ours.
 */
import { readCappedBytes } from "../../outbound/capped-body";

const CALL_TIMEOUT_MS = 20_000;
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** The provider refused the access token (HTTP 401): refresh once and try again. */
export class ProviderUnauthorized extends Error {}

/** The saved sign-in is no longer good (invalid_grant: revoked, expired, password changed). */
export class SignInAgain extends Error {}

/** Any other provider failure, its message fit for `last_error` (no token, no body beyond the error code). */
export class ProviderFailure extends Error {}

export interface TokenSet {
	accessToken: string;
	/** Null when the provider sent none this time: the one kept is still good (Google does not rotate). */
	refreshToken: string | null;
	/** Milliseconds since the epoch. */
	expiresAt: number;
}

export interface ProviderAnswer {
	status: number;
	body: Record<string, unknown>;
	headers: Headers;
}

/** One call to a provider, its JSON body read with a cap; network failures become ProviderFailure. */
export async function providerCall(label: string, url: string, init: RequestInit): Promise<ProviderAnswer> {
	let res: Response;
	try {
		res = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
	} catch {
		throw new ProviderFailure(`${label} could not be reached; it will be tried again`);
	}
	const bytes = await readCappedBytes(res, MAX_ANSWER_BYTES);
	let body: Record<string, unknown> = {};
	if (bytes && bytes.length > 0) {
		try {
			const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
			if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
		} catch {
			// Not JSON (an HTML error page): the status says enough.
		}
	}
	return { status: res.status, body, headers: res.headers };
}

/**
 * An API answer's body when it succeeded. A 401 is the access token's fault (refreshed and tried
 * again); any other failure names the provider's own short error code, which `code` reads from
 * its error shape, never its message.
 */
export function checkedAnswer(
	label: string,
	answer: ProviderAnswer,
	what: string,
	code: (body: Record<string, unknown>) => unknown,
): Record<string, unknown> {
	if (answer.status === 401) throw new ProviderUnauthorized(`${label} refused the access token`);
	if (answer.status < 200 || answer.status >= 300) {
		const said = code(answer.body);
		throw new ProviderFailure(`${label} ${what} failed (HTTP ${answer.status}${typeof said === "string" ? `, ${said.slice(0, 60)}` : ""})`);
	}
	return answer.body;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}`, accept: "application/json" });

/** A token endpoint answer as a TokenSet; `invalid_grant` means the user must sign in again. */
export function tokenSetOf(label: string, answer: ProviderAnswer, now: number): TokenSet {
	const { body } = answer;
	if (answer.status !== 200 || typeof body.access_token !== "string") {
		if (body.error === "invalid_grant")
			throw new SignInAgain(`${label} no longer accepts this calendar's sign-in: sign in again to reconnect it`);
		const code = typeof body.error === "string" ? body.error.slice(0, 60) : `HTTP ${answer.status}`;
		throw new ProviderFailure(`${label} refused the token request (${code})`);
	}
	const expiresIn = typeof body.expires_in === "number" ? body.expires_in : Number(body.expires_in ?? 3600);
	return {
		accessToken: body.access_token,
		refreshToken: typeof body.refresh_token === "string" ? body.refresh_token : null,
		expiresAt: now + (Number.isFinite(expiresIn) ? expiresIn : 3600) * 1000,
	};
}

export const formBody = (fields: Record<string, string>) => ({
	method: "POST",
	headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
	body: new URLSearchParams(fields).toString(),
});

/** The deployment's client at a provider's token endpoint. */
export interface TokenClient {
	label: string;
	tokenUrl: string;
	clientId: string;
	clientSecret: string;
}

/** One grant at the token endpoint with the client's credentials: the answer (for its ID token) and its tokens. */
export async function requestTokens(
	client: TokenClient,
	grant: Record<string, string>,
	now: number,
): Promise<{ answer: ProviderAnswer; tokens: TokenSet }> {
	const answer = await providerCall(
		client.label,
		client.tokenUrl,
		formBody({ client_id: client.clientId, client_secret: client.clientSecret, ...grant }),
	);
	return { answer, tokens: tokenSetOf(client.label, answer, now) };
}

/**
 * The claims of an ID token from the token endpoint. Its signature is not checked: it came
 * straight from the provider's token endpoint over TLS, which OpenID Connect Core 3.1.3.7 lets
 * stand in for the signature check. Only the address shown as `account` is read from it.
 */
export function idTokenClaims(idToken: unknown): Record<string, unknown> {
	if (typeof idToken !== "string") return {};
	const payload = idToken.split(".")[1];
	if (!payload) return {};
	try {
		const text = atob(
			payload
				.replaceAll("-", "+")
				.replaceAll("_", "/")
				.padEnd(Math.ceil(payload.length / 4) * 4, "="),
		);
		const claims: unknown = JSON.parse(text);
		return claims && typeof claims === "object" ? (claims as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

function base64Url(bytes: Uint8Array): string {
	let s = "";
	for (const b of bytes) s += String.fromCharCode(b);
	return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** A random URL-safe secret of `bytes` random bytes (PKCE verifier, state, channel token). */
export const randomSecret = (bytes = 32) => base64Url(crypto.getRandomValues(new Uint8Array(bytes)));

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export async function pkceChallenge(verifier: string): Promise<string> {
	return base64Url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** A base URL setting without its trailing slash. */
export const baseUrl = (value: string) => value.replace(/\/+$/, "");
