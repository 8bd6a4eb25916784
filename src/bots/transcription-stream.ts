/**
 * A bot's streaming transcription, relayed by the Worker (docs/bot-channel.md#streaming-transcription):
 * the bot opens a WebSocket to the gateway with its channel token and speaks the provider's own
 * streaming protocol (Deepgram's `/v1/listen`, AssemblyAI's `/v3/ws`); the Worker opens the
 * provider's WebSocket with the key (the account's, else the deployment's) and pipes frames both
 * ways. The key never reaches the bot: it is only in the upstream request's header, and any text
 * the provider sends back with it in is redacted. Audio is metered as the HTTP relay's is
 * (src/bots/relay-meter.ts), in blocks reserved before they are forwarded; past the allowance the
 * stream is closed (1008) with the reason.
 */
import type { Env } from "../env";
import { ApiError } from "../errors";
import type { ResolvedSettings } from "../settings/account-settings";
import type { StreamingProvider } from "../shapes/transcription";
import { PROVIDERS, providerKey, providerStreamUrl } from "./transcription-engine";

/** What the stream's audio is forced to be, whatever the bot asks: 16 kHz mono PCM16, so its bytes say its seconds. */
const BYTES_PER_SECOND = 16_000 * 2;
/** Seconds of audio reserved at a time before they are forwarded. */
export const STREAM_METER_BLOCK_S = 10;
/** The largest control message a bot may send (KeepAlive, CloseStream, Terminate, configuration). */
const MAX_TEXT_MESSAGE = 4_096;

/** The query the provider gets: the bot's, with the audio format fixed and no token of the bot's choosing. */
export function providerQuery(provider: StreamingProvider, asked: URLSearchParams): URLSearchParams {
	const q = new URLSearchParams(asked);
	q.delete("token");
	q.set("sample_rate", "16000");
	if (provider === "deepgram") {
		q.set("encoding", "linear16");
		q.set("channels", "1");
	} else q.set("encoding", "pcm_s16le");
	return q;
}

/** Reserves `seconds` of the meeting's and the account's allowance; the refusal's sentence when it is spent. */
export type Meter = (seconds: number) => Promise<{ ok: true } | { ok: false; detail: string }>;

/**
 * Opens the provider's stream and answers the bot's upgrade with the other end of a pipe to it.
 * 502 `{detail}` when the provider refuses or cannot be reached (its own text is not passed on).
 */
export async function relayStream(
	env: Env,
	t: ResolvedSettings["transcription"],
	provider: StreamingProvider,
	asked: URLSearchParams,
	meter: Meter,
	waitUntil: (work: Promise<unknown>) => void,
): Promise<Response> {
	const key = providerKey(env, t, provider);
	const { label } = PROVIDERS[provider];
	if (!key) throw new ApiError(409, `No ${label} API key is set for this meeting's account or deployment`);
	const url = providerStreamUrl(env, provider);
	url.search = providerQuery(provider, asked).toString();
	let upstream: Response;
	try {
		upstream = await fetch(url, {
			headers: { Upgrade: "websocket", Authorization: provider === "deepgram" ? `Token ${key}` : key },
			redirect: "manual",
		});
	} catch {
		throw new ApiError(502, `${label} could not be reached`);
	}
	const providerSocket = upstream.webSocket;
	if (upstream.status !== 101 || !providerSocket) {
		await upstream.body?.cancel();
		const why = upstream.status === 401 || upstream.status === 403 ? "refused the API key" : `answered ${upstream.status}`;
		throw new ApiError(502, `${label} ${why}`);
	}
	const [botEnd, relayEnd] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
	providerSocket.accept();
	relayEnd.accept();
	// The provider's close handshake outlives the bot's end of the pipe: the request stays until it is done.
	waitUntil(pipe(relayEnd, providerSocket, key, meter));
	return new Response(null, { status: 101, webSocket: botEnd });
}

/** A binary message's bytes: workerd hands them as an ArrayBuffer, or as a Blob depending on how they were sent. */
async function audioBytes(data: unknown): Promise<ArrayBuffer | null> {
	if (data instanceof Blob) return data.arrayBuffer();
	if (data instanceof ArrayBuffer) return data;
	if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice().buffer;
	return null;
}

/** A close frame's reason holds at most 123 bytes of UTF-8: a longer one is cut at a character. */
function closeReason(reason: string): string {
	let text = reason;
	while (new TextEncoder().encode(text).length > 123) text = text.slice(0, -1);
	return text;
}

/** A close code one side may send on: codes that only describe a lost connection become 1011. */
const sendableCode = (code: number) =>
	code === 1000 || (code >= 3000 && code <= 4999) || [1001, 1003, 1007, 1008, 1011].includes(code) ? code : 1011;

/** Pipes the two sockets; resolves once the provider's side has closed (or 5 s after the pipe was closed). */
function pipe(bot: WebSocket, provider: WebSocket, key: string, meter: Meter): Promise<void> {
	let providerClosed!: () => void;
	const done = new Promise<void>((resolve) => {
		providerClosed = resolve;
	});
	const redact = (text: string) => (text.includes(key) ? text.replaceAll(key, "[redacted]") : text);
	let reserved = 0;
	let closed = false;
	// One message at a time, in order: a block's reservation finishes before the next audio goes on.
	let queue: Promise<void> = Promise.resolve();
	const closeBoth = (code: number, reason: string) => {
		if (closed) return;
		closed = true;
		setTimeout(providerClosed, 5_000);
		const text = closeReason(redact(reason));
		for (const socket of [bot, provider]) {
			try {
				socket.close(sendableCode(code), text);
			} catch {
				// Already closing.
			}
		}
	};
	const forward = async (message: unknown) => {
		if (closed) return;
		if (typeof message === "string") {
			if (message.length > MAX_TEXT_MESSAGE) return closeBoth(1008, "control message too large");
			provider.send(message);
			return;
		}
		const data = await audioBytes(message);
		if (!data) return closeBoth(1003, "audio must be binary frames");
		const seconds = data.byteLength / BYTES_PER_SECOND;
		while (reserved < seconds) {
			const allowed = await meter(STREAM_METER_BLOCK_S);
			if (!allowed.ok) return closeBoth(1008, allowed.detail);
			reserved += STREAM_METER_BLOCK_S;
		}
		reserved -= seconds;
		if (!closed) provider.send(data);
	};
	bot.addEventListener("message", (event) => {
		queue = queue.then(() => forward(event.data)).catch(() => closeBoth(1011, "relay error"));
	});
	provider.addEventListener("message", (event) => {
		if (closed) return;
		// The providers' results are JSON text (a key one echoes stays here); they send nothing binary.
		if (typeof event.data === "string") bot.send(redact(event.data));
	});
	// A close from the bot (after its CloseStream or Terminate) waits for the audio before it to go on.
	bot.addEventListener("close", (event) => {
		queue = queue.then(() => closeBoth(event.code, event.reason));
	});
	provider.addEventListener("close", (event) => {
		closeBoth(event.code, event.reason);
		providerClosed();
	});
	bot.addEventListener("error", () => closeBoth(1011, "bot connection error"));
	provider.addEventListener("error", () => closeBoth(1011, "provider connection error"));
	return done;
}
