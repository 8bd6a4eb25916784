/**
 * The per-meeting token a bot presents on its channel and its recording upload: an HMAC over
 * the meeting id and an expiry. It works for that meeting only.
 * Form: `<meeting id>.<expiry unix s>.<hex HMAC-SHA256>`.
 *
 * The key is derived (HKDF) from `SECRETS_KEY`, which only the Worker holds. The bot host
 * never has it: it receives one token per meeting in the spawn request, so a compromised
 * host can speak for the meetings it runs and for no other.
 */
import { derivedHmacKey } from "../settings/derived-key";

const encoder = new TextEncoder();
const signingKey = (secretsKey: string) => derivedHmacKey(secretsKey, "bot-channel-token/v1");

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function signChannelToken(secretsKey: string, meetingId: number, ttlSeconds: number, nowMs = Date.now()): Promise<string> {
	const expiry = Math.floor(nowMs / 1000) + ttlSeconds;
	const payload = `${meetingId}.${expiry}`;
	const mac = await crypto.subtle.sign("HMAC", await signingKey(secretsKey), encoder.encode(payload));
	return `${payload}.${hex(mac)}`;
}

export async function verifyChannelToken(
	secretsKey: string | undefined,
	token: string | null | undefined,
	meetingId: number,
	nowMs = Date.now(),
): Promise<boolean> {
	if (!secretsKey || !token) return false;
	const [id, expiry, mac] = token.split(".");
	if (!id || !expiry || !mac || Number(id) !== meetingId || !/^[0-9a-f]{64}$/.test(mac)) return false;
	if (Number(expiry) * 1000 <= nowMs) return false;
	const bytes = new Uint8Array(mac.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
	return crypto.subtle.verify("HMAC", await signingKey(secretsKey), bytes, encoder.encode(`${id}.${expiry}`));
}
