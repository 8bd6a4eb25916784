/**
 * Webhook signatures (docs/webhooks.md#signature):
 *   X-Webhook-Timestamp: <unix seconds>
 *   X-Webhook-Signature: sha256=<hex HMAC-SHA256(secret, "<timestamp>." + raw body)>
 *
 * `verifyWebhook` is for receivers and has no dependency beyond Web Crypto, so it runs in a
 * Worker, in Node 20+ and in browsers. It compares with `crypto.subtle.verify`, which checks
 * the MAC in constant time, and it signs the raw bytes received, never a re-serialization.
 */

export const SIGNATURE_HEADER = "X-Webhook-Signature";
export const TIMESTAMP_HEADER = "X-Webhook-Timestamp";

export type Body = string | ArrayBuffer | ArrayBufferView;

export type SignatureHeaders = {
	"X-Webhook-Signature": string;
	"X-Webhook-Timestamp": string;
};

/** Signs `body` at `timestampSeconds` (unix seconds); the headers to send with it. */
export async function signWebhook(secret: string, body: Body, timestampSeconds: number): Promise<SignatureHeaders> {
	if (secret === "") throw new Error("an empty secret cannot sign");
	const timestamp = String(Math.floor(timestampSeconds));
	const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), signedBytes(timestamp, body));
	return { [SIGNATURE_HEADER]: `sha256=${toHex(new Uint8Array(mac))}`, [TIMESTAMP_HEADER]: timestamp };
}

export type VerifyFailure =
	| "missing_signature"
	| "malformed_signature"
	| "missing_timestamp"
	| "malformed_timestamp"
	| "stale_timestamp"
	| "future_timestamp"
	| "bad_signature";

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
	/** Largest accepted distance between the timestamp and now, either way (replay window). */
	toleranceSeconds: number;
	/** The receiver's current time; defaults to the system clock. */
	now?: Date;
}

/** Header bags as they come: a Fetch `Headers`, or a plain object such as Node's `req.headers`. */
export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery: both headers present and well-formed, the timestamp inside the window,
 * and the HMAC of "<timestamp>.<body>" under `secret` equal to the signature.
 */
export async function verifyWebhook(secret: string, headers: HeaderBag, body: Body, options: VerifyOptions): Promise<VerifyResult> {
	const signature = header(headers, SIGNATURE_HEADER);
	const timestamp = header(headers, TIMESTAMP_HEADER);
	if (signature === undefined) return { ok: false, reason: "missing_signature" };
	if (timestamp === undefined) return { ok: false, reason: "missing_timestamp" };
	const match = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim());
	if (!match) return { ok: false, reason: "malformed_signature" };
	if (!/^\d{1,12}$/.test(timestamp.trim())) return { ok: false, reason: "malformed_timestamp" };

	const ts = Number(timestamp.trim());
	const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
	const tolerance = Math.max(0, options.toleranceSeconds);
	if (ts < nowSeconds - tolerance) return { ok: false, reason: "stale_timestamp" };
	if (ts > nowSeconds + tolerance) return { ok: false, reason: "future_timestamp" };

	if (secret === "") return { ok: false, reason: "bad_signature" };
	const mac = fromHex(match[1]!);
	const valid = await crypto.subtle.verify("HMAC", await hmacKey(secret, "verify"), mac, signedBytes(timestamp.trim(), body));
	return valid ? { ok: true, timestamp: ts } : { ok: false, reason: "bad_signature" };
}

function header(headers: HeaderBag, name: string): string | undefined {
	if (headers instanceof Headers) return headers.get(name) ?? undefined;
	const wanted = name.toLowerCase();
	for (const [key, value] of Object.entries(headers)) {
		if (key.toLowerCase() !== wanted || value === undefined) continue;
		// A repeated header is ambiguous; treat it as malformed rather than pick one.
		return Array.isArray(value) ? (value.length === 1 ? value[0] : "") : value;
	}
	return undefined;
}

const encoder = new TextEncoder();

function signedBytes(timestamp: string, body: Body): Uint8Array<ArrayBuffer> {
	const prefix = encoder.encode(`${timestamp}.`);
	const raw =
		typeof body === "string"
			? encoder.encode(body)
			: body instanceof ArrayBuffer
				? new Uint8Array(body)
				: new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
	const out = new Uint8Array(prefix.length + raw.length);
	out.set(prefix, 0);
	out.set(raw, prefix.length);
	return out;
}

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
	return crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

function toHex(bytes: Uint8Array): string {
	return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
	const out = new Uint8Array(hex.length / 2);
	for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
	return out;
}
