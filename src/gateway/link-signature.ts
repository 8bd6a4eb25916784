/**
 * The gateway's own expiring links (recording downloads, bots' screenshots): an HMAC-SHA256 over
 * a text naming what the link opens and until when, under a key derived from SECRETS_KEY for
 * that one purpose, carried base64url in the query. A link opens without an API key until it
 * expires, and never after.
 */
import { base64url } from "./api-keys";

export type LinkCheck = "valid" | "expired" | "invalid";

const encoder = new TextEncoder();

export async function signLink(key: CryptoKey, text: string): Promise<string> {
	return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text))));
}

function fromBase64Url(text: string): Uint8Array | null {
	try {
		return Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));
	} catch {
		return null;
	}
}

/**
 * Checks a link's `expires` and `signature` (from its query): the signature first, in constant
 * time, over the text `signedText` makes for that expiry; then the expiry.
 */
export async function checkLink(
	key: CryptoKey,
	signedText: (expires: number) => string,
	expires: string | undefined,
	signature: string | undefined,
	now: Date,
): Promise<LinkCheck> {
	const at = Number(expires);
	const given = signature ? fromBase64Url(signature) : null;
	if (!Number.isSafeInteger(at) || !given) return "invalid";
	if (!(await crypto.subtle.verify("HMAC", key, given, encoder.encode(signedText(at))))) return "invalid";
	return now.getTime() / 1000 > at ? "expired" : "valid";
}
