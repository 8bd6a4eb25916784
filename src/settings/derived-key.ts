/**
 * HMAC keys derived (HKDF-SHA-256) from `SECRETS_KEY`, one per purpose: a signature made for
 * one purpose (a download link, a bot's channel token, a spawn ticket) can never stand in for
 * another, nor for anything sealed with `SECRETS_KEY` itself.
 */
const encoder = new TextEncoder();
const cache = new Map<string, Promise<CryptoKey>>();

export type KeyPurpose = "recording-download-link/v1" | "bot-channel-token/v1" | "spawn-ticket/v1" | "screenshot-link/v1";

export function derivedHmacKey(secretsKey: string, purpose: KeyPurpose): Promise<CryptoKey> {
	const cacheKey = `${purpose}\n${secretsKey}`;
	let key = cache.get(cacheKey);
	if (!key) {
		key = crypto.subtle
			.importKey(
				"raw",
				Uint8Array.from(atob(secretsKey), (ch) => ch.charCodeAt(0)),
				"HKDF",
				false,
				["deriveKey"],
			)
			.then((base) =>
				crypto.subtle.deriveKey(
					{ name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(purpose) },
					base,
					{ name: "HMAC", hash: "SHA-256", length: 256 },
					false,
					["sign", "verify"],
				),
			);
		cache.set(cacheKey, key);
	}
	return key;
}
