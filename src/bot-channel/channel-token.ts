/**
 * The per-meeting token a bot presents on its channel and its recording upload: an HMAC over
 * the meeting id and an expiry, keyed by the bot host secret. It works for that meeting only.
 * Form: `<meeting id>.<expiry unix s>.<hex HMAC-SHA256>`.
 */
const encoder = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function signingKey(secret: string): Promise<CryptoKey> {
	let key = keys.get(secret);
	if (!key) {
		key = crypto.subtle.importKey("raw", encoder.encode(`bot-channel:${secret}`), { name: "HMAC", hash: "SHA-256" }, false, [
			"sign",
			"verify",
		]);
		keys.set(secret, key);
	}
	return key;
}

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function signChannelToken(secret: string, meetingId: number, ttlSeconds: number, nowMs = Date.now()): Promise<string> {
	const expiry = Math.floor(nowMs / 1000) + ttlSeconds;
	const payload = `${meetingId}.${expiry}`;
	const mac = await crypto.subtle.sign("HMAC", await signingKey(secret), encoder.encode(payload));
	return `${payload}.${hex(mac)}`;
}

export async function verifyChannelToken(
	secret: string | undefined,
	token: string | null | undefined,
	meetingId: number,
	nowMs = Date.now(),
): Promise<boolean> {
	if (!secret || !token) return false;
	const [id, expiry, mac] = token.split(".");
	if (!id || !expiry || !mac || Number(id) !== meetingId || !/^[0-9a-f]{64}$/.test(mac)) return false;
	if (Number(expiry) * 1000 <= nowMs) return false;
	const bytes = new Uint8Array(mac.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
	return crypto.subtle.verify("HMAC", await signingKey(secret), bytes, encoder.encode(`${id}.${expiry}`));
}
