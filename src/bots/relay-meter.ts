/**
 * Raw SQL store (its table is not in the drizzle schema, and the day's sum is a capped upsert in one statement): the account's relayed audio per UTC day.
 * What the transcription relay counts (docs/bot-channel.md#transcription): the seconds of audio
 * each request carries, summed per meeting (against the time the meeting has run, in its room:
 * durable-objects/meeting-room/relay-meter.ts) and per account and UTC day (here, in D1), so a
 * superseded or compromised host cannot spend the account's or the deployment's provider without
 * end. Both are checked and added in one step before the provider is called.
 */
import type { Env } from "../env";
import { ApiError } from "../errors";
import { setting } from "../settings/deployment-defaults";

/**
 * The fewest bytes a second of audio takes, counted when a file does not say its rate or says a
 * faster one: 48 kHz stereo PCM16. A forged header can only make a request count for more.
 */
const MAX_BYTES_PER_SECOND = 48_000 * 2 * 2;

/** Seconds of audio in a WAV file, from its `fmt ` and `data` chunks; null when it is not one. */
export function wavSeconds(bytes: Uint8Array): number | null {
	const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
	const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
	if (bytes.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
	let bytesPerSecond = 0;
	for (let at = 12; at + 8 <= bytes.length; ) {
		const size = view.getUint32(at + 4, true);
		if (tag(at) === "fmt " && at + 24 <= bytes.length) {
			const channels = view.getUint16(at + 10, true);
			const rate = view.getUint32(at + 12, true);
			const bits = view.getUint16(at + 22, true);
			bytesPerSecond = channels * rate * Math.ceil(bits / 8);
		} else if (tag(at) === "data") {
			if (bytesPerSecond <= 0) return null;
			const data = Math.min(size, bytes.length - at - 8);
			return data / Math.min(bytesPerSecond, MAX_BYTES_PER_SECOND);
		}
		at += 8 + size + (size % 2);
	}
	return null;
}

/** The seconds of audio a transcription request carries: its WAV's length, else its file's bytes at the fastest rate counted. */
export async function audioSecondsOf(body: ArrayBuffer, contentType: string): Promise<number> {
	let form: FormData;
	try {
		form = await new Response(body, { headers: { "content-type": contentType } }).formData();
	} catch {
		throw new ApiError(400, "The body is not a readable multipart form");
	}
	const file = form.get("file");
	if (!file || typeof file === "string") throw new ApiError(422, "The form has no audio `file`");
	const bytes = new Uint8Array(await file.arrayBuffer());
	return Math.max(wavSeconds(bytes) ?? 0, bytes.length / MAX_BYTES_PER_SECOND);
}

/** The UTC day a relay counts against, `YYYY-MM-DD`. */
export const usageDay = (at: Date) => at.toISOString().slice(0, 10);

/** How many seconds an account may relay in one UTC day (TRANSCRIPTION_RELAY_DAILY_SECONDS). */
export const dailyRelayLimit = (env: Env) => Math.max(0, setting(env, "TRANSCRIPTION_RELAY_DAILY_SECONDS"));

/**
 * Adds `seconds` to the account's count for today, in the same statement that checks the limit;
 * 429 `{detail}` and nothing added when it would pass it.
 */
export async function meterAccountAudio(env: Env, userId: number, seconds: number, now: Date): Promise<void> {
	const limit = dailyRelayLimit(env);
	const counted = await env.DB.prepare(
		`INSERT INTO transcription_usage (user_id, day, seconds) SELECT ?1, ?2, ?3 WHERE ?3 <= ?4
		 ON CONFLICT (user_id, day) DO UPDATE SET seconds = transcription_usage.seconds + excluded.seconds
		 WHERE transcription_usage.seconds + excluded.seconds <= ?4
		 RETURNING seconds`,
	)
		.bind(userId, usageDay(now), seconds, limit)
		.first<number>("seconds");
	if (counted === null) {
		throw new ApiError(429, `The account has sent its ${limit} s of audio to transcribe for today (UTC); it can send more tomorrow`);
	}
}

/** The account's relayed seconds today and the daily limit, as GET /user/transcription shows them. */
export async function accountAudioToday(env: Env, userId: number, now: Date) {
	const day = usageDay(now);
	const seconds = await env.DB.prepare("SELECT seconds FROM transcription_usage WHERE user_id = ? AND day = ?")
		.bind(userId, day)
		.first<number>("seconds");
	return { day, relayed_seconds: Math.round((seconds ?? 0) * 10) / 10, daily_limit_seconds: dailyRelayLimit(env) };
}
