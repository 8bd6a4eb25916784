/** API keys: minting, hashing and the scope vocabulary. The clear key exists only at minting. */

export const VALID_SCOPES = ["bot", "browser", "tx"] as const;
export type Scope = (typeof VALID_SCOPES)[number];

const encoder = new TextEncoder();

export function isScope(value: string): value is Scope {
	return (VALID_SCOPES as readonly string[]).includes(value);
}

/** Splits `bot,tx` (or a list) into trimmed, de-duplicated names, keeping the given order. */
export function splitScopes(input: string | readonly string[]): string[] {
	const parts = typeof input === "string" ? input.split(",") : input;
	return [...new Set(parts.map((s) => s.trim()).filter(Boolean))];
}

/** The detail text existing tooling matches on, in Python list notation. */
export function invalidScopeDetail(invalid: string[]): string {
	const list = (xs: readonly string[]) => `[${xs.map((x) => `'${x}'`).join(", ")}]`;
	return `Invalid scope(s): ${list(invalid)}. Valid: ${list(VALID_SCOPES)}`;
}

/**
 * The 403 of a key without the route's scope. It keeps the reference's sentence first, which
 * existing tooling matches on, then names what the route needs and what the key has, so the
 * caller knows which key to mint (docs/api.md#errors). Scope names only: never the key.
 */
export function scopeRefusal(accepted: readonly Scope[], has: readonly Scope[], route: string): string {
	const needed = accepted.map((s) => `"${s}"`).join(" or ");
	const held = has.length > 0 ? [...has].sort().join(", ") : "no scopes";
	return `${SCOPE_REFUSED}: this API key lacks the ${needed} scope needed for ${route}; it has: ${held}`;
}

/** The first sentence of every scope 403, as in the reference gateway. */
export const SCOPE_REFUSED = "Token scope not authorized for this endpoint";

export function serializeScopes(scopes: readonly Scope[]): string {
	return [...scopes].sort().join(",");
}

export function parseStoredScopes(stored: string): Scope[] {
	return splitScopes(stored).filter(isScope);
}

export function base64url(bytes: Uint8Array): string {
	let s = "";
	for (const b of bytes) s += String.fromCharCode(b);
	return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** `vxa_<first scope>_<43 chars of base64url over 32 random bytes>`. */
export function mintApiKey(firstScope: Scope): string {
	const random = crypto.getRandomValues(new Uint8Array(32));
	return `vxa_${firstScope}_${base64url(random)}`;
}

export async function hashApiKey(key: string): Promise<string> {
	const digest = await crypto.subtle.digest("SHA-256", encoder.encode(key));
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Equal-time comparison for secrets of any length (compares digests, so lengths do not leak). */
export async function secretsEqual(a: string, b: string): Promise<boolean> {
	const [da, db] = await Promise.all([
		crypto.subtle.digest("SHA-256", encoder.encode(a)),
		crypto.subtle.digest("SHA-256", encoder.encode(b)),
	]);
	return crypto.subtle.timingSafeEqual(da, db);
}
