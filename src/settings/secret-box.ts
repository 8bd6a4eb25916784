import { ApiError } from "../errors";

/**
 * Secrets at rest (model keys, transcription tokens, webhook secrets, ICS URLs) are sealed
 * with AES-GCM under the deployment key `SECRETS_KEY` (base64 of 32 bytes).
 * Sealed form: `v1.<base64 iv>.<base64 ciphertext>`.
 */

const keyCache = new Map<string, Promise<CryptoKey>>();
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function toBase64(bytes: Uint8Array): string {
	let s = "";
	for (const b of bytes) s += String.fromCharCode(b);
	return btoa(s);
}

function fromBase64(text: string): Uint8Array {
	return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function deploymentKey(secretsKey: string | undefined): Promise<CryptoKey> {
	if (!secretsKey) throw new ApiError(503, "Secret storage is not configured on this deployment", { "Retry-After": "60" });
	let key = keyCache.get(secretsKey);
	if (!key) {
		const raw = fromBase64(secretsKey);
		if (raw.length !== 32) throw new ApiError(503, "Secret storage is misconfigured on this deployment");
		key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
		keyCache.set(secretsKey, key);
	}
	return key;
}

export async function seal(secretsKey: string | undefined, clear: string): Promise<string> {
	const key = await deploymentKey(secretsKey);
	const iv = crypto.getRandomValues(new Uint8Array(12));
	const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, encoder.encode(clear));
	return `v1.${toBase64(iv)}.${toBase64(new Uint8Array(sealed))}`;
}

export async function unseal(secretsKey: string | undefined, sealed: string): Promise<string> {
	const [version, iv, body] = sealed.split(".");
	if (version !== "v1" || !iv || !body) throw new Error("unknown sealed secret format");
	const key = await deploymentKey(secretsKey);
	const clear = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromBase64(iv) }, key, fromBase64(body));
	return decoder.decode(clear);
}

/** What a secret looks like on the way out: its last four characters at most, never all of it. */
export function maskSecret(clear: string): string {
	return clear.length > 8 ? `****${clear.slice(-4)}` : "****";
}
