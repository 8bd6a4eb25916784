/**
 * The per-attempt token a bot presents on its channel and its recording upload: an HMAC over
 * the meeting id, the attempt and an expiry. It works for that meeting only; the room refuses
 * its channel once a newer attempt exists (a respawn) or the meeting ended, while the recording
 * upload takes any attempt's token of its own meeting (an earlier bot's audio is still the
 * meeting's), once, and only shortly after the meeting ended (src/recordings/upload-rules.ts).
 * Form: `<meeting id>.<attempt>.<expiry unix s>.<hex HMAC-SHA256>`.
 *
 * The key is derived (HKDF) from `SECRETS_KEY`, which only the Worker holds. The bot host
 * never has it: it receives one token per claimed attempt in the spawn request, so a
 * compromised host can speak for the meetings it runs and for no other.
 */
import { ApiError } from "../errors";
import { bearerToken } from "../gateway/presented-key";
import { derivedHmacKey } from "../settings/derived-key";

const encoder = new TextEncoder();
const signingKey = (secretsKey: string) => derivedHmacKey(secretsKey, "bot-channel-token/v1");

const hex = (buf: ArrayBuffer) => [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");

const DECIMAL = /^[1-9][0-9]{0,15}$/;

export async function signChannelToken(
	secretsKey: string,
	meetingId: number,
	attempt: number,
	ttlSeconds: number,
	nowMs = Date.now(),
): Promise<string> {
	const expiry = Math.floor(nowMs / 1000) + ttlSeconds;
	const payload = `${meetingId}.${attempt}.${expiry}`;
	const mac = await crypto.subtle.sign("HMAC", await signingKey(secretsKey), encoder.encode(payload));
	return `${payload}.${hex(mac)}`;
}

/** The attempt the token was signed for, or null when it is not a valid, unexpired token of this meeting. */
export async function verifyChannelToken(
	secretsKey: string | undefined,
	token: string | null | undefined,
	meetingId: number,
	nowMs = Date.now(),
): Promise<number | null> {
	if (!secretsKey || !token) return null;
	const parts = token.split(".");
	if (parts.length !== 4) return null;
	const [id, attempt, expiry, mac] = parts as [string, string, string, string];
	if (!DECIMAL.test(id) || !DECIMAL.test(attempt) || !DECIMAL.test(expiry) || !/^[0-9a-f]{64}$/.test(mac)) return null;
	if (Number(id) !== meetingId || Number(expiry) * 1000 <= nowMs) return null;
	const bytes = new Uint8Array(mac.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
	const valid = await crypto.subtle.verify("HMAC", await signingKey(secretsKey), bytes, encoder.encode(`${id}.${attempt}.${expiry}`));
	return valid ? Number(attempt) : null;
}

/**
 * The meeting and the attempt a bot's request speaks for: the route's meeting id and the channel
 * token in its `Authorization: Bearer` header (header only: a token in the query would end up in
 * access logs). 401 naming `what` the token was for otherwise.
 */
export async function channelAttempt(
	secretsKey: string | undefined,
	meetingIdParam: string | undefined,
	authorization: string | undefined,
	what: string,
): Promise<{ meetingId: number; attempt: number }> {
	const meetingId = Number(meetingIdParam);
	const attempt = Number.isSafeInteger(meetingId) ? await verifyChannelToken(secretsKey, bearerToken(authorization), meetingId) : null;
	if (attempt === null) throw new ApiError(401, `Invalid ${what} token`);
	return { meetingId, attempt };
}
