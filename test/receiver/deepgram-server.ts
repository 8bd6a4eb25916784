/**
 * A local Deepgram live streaming API (`wss://api.deepgram.com/v1/listen`), as Deepgram publishes it
 * (developers.deepgram.com/reference/speech-to-text/listen-streaming, /docs/keep-alive,
 * /docs/close-stream, /docs/finalize, /docs/understand-endpointing-interim-results):
 * - auth: `Authorization: Token <key>` on the handshake; anything else is refused with HTTP 401
 *   and `{err_code: "INVALID_AUTH", err_msg}` before any upgrade.
 * - audio: binary frames of the `encoding`/`sample_rate` the query names (raw audio needs both;
 *   without `encoding` the stream is read as a container, which raw PCM is not: DATA-0000, 1008).
 * - `Results`: with `interim_results=true`, interim results (`is_final: false`) as words come, a
 *   final one (`is_final: true`) for the stretch so far every few words, and when the speaker pauses
 *   for `endpointing` ms a final one with `speech_final: true`; with `utterance_end_ms` also an
 *   `UtteranceEnd` after that much silence since the last word. `keyterm` (nova-3) or `keywords`
 *   (older models) spell the words they match; `language=multi` says each word's language.
 * - `KeepAlive` (text) holds a silent stream open; with neither audio nor a message for the idle
 *   timeout (10 s at Deepgram) the server closes with 1011 and NET-0001.
 * - `Finalize` flushes: a final result with `from_finalize: true`. `CloseStream`: the last
 *   results, a `Metadata` message, then close 1000.
 * The recogniser is the shared stand-in (streaming-stt.ts): it hears energy, not words.
 */
import { randomUUID } from "node:crypto";
import { Ear, type Run, type StreamingSttServer, startStreamingSttServer, wordTimes } from "./streaming-stt.ts";

export interface DeepgramServerOptions {
	keys?: string[];
	/** Deepgram closes a stream with no audio and no message for 10 s; tests may shorten it. */
	idleTimeoutMs?: number;
	port?: number;
}

const FINAL_EVERY_WORDS = 3;

export function startDeepgramServer(options: DeepgramServerOptions = {}): Promise<StreamingSttServer> {
	const idleTimeoutMs = options.idleTimeoutMs ?? 10_000;
	return startStreamingSttServer(
		{
			path: "/v1/listen",
			keyOf: (req) => req.headers.authorization?.match(/^token\s+(\S+)$/i)?.[1] ?? null,
			refuseHandshake: (_key, known) =>
				known ? null : { status: 401, body: { err_code: "INVALID_AUTH", err_msg: "Invalid credentials.", request_id: randomUUID() } },
			session(socket, s) {
				const q = s.url.searchParams;
				const requestId = randomUUID();
				const model = q.get("model") ?? "base";
				const hints = model.startsWith("nova-3") ? q.getAll("keyterm") : q.getAll("keywords").map((k) => k.split(":")[0] ?? k);
				const interim = q.get("interim_results") === "true";
				const endpointingMs = q.get("endpointing") === "false" ? null : Number(q.get("endpointing") ?? 10);
				const utteranceEndMs = q.has("utterance_end_ms") && interim ? Number(q.get("utterance_end_ms")) : null;
				const language = q.get("language") ?? "en";
				const raw = q.has("encoding");
				let finalizedWords = 0;
				let finalizedToS = 0;
				let speechFinalSent = false;
				let utteranceEndSent = false;
				let lastWordEndS = 0;
				const send = (message: unknown) => socket.send(JSON.stringify(message));
				const results = (run: Run | null, upTo: number, flags: { is_final: boolean; speech_final: boolean; from_finalize?: boolean }) => {
					const words = run
						? run.words.slice(finalizedWords, upTo).map((word, k) => {
								const { start, end } = wordTimes(run, finalizedWords + k);
								return {
									word: word.toLowerCase(),
									start,
									end,
									confidence: 0.98,
									punctuated_word: word,
									...(language === "multi" ? { language: "en" } : {}),
								};
							})
						: [];
					const endS = Math.max(ear.streamS, finalizedToS);
					send({
						type: "Results",
						channel_index: [0, 1],
						duration: Number((endS - finalizedToS).toFixed(3)),
						start: Number(finalizedToS.toFixed(3)),
						is_final: flags.is_final,
						speech_final: flags.speech_final,
						...(flags.from_finalize ? { from_finalize: true } : {}),
						channel: {
							alternatives: [
								{
									transcript: words.map((w) => w.punctuated_word).join(" "),
									confidence: words.length ? 0.98 : 0,
									words,
									...(language === "multi" ? { languages: words.length ? ["en"] : [] } : {}),
								},
							],
						},
						metadata: { request_id: requestId, model_info: { name: model, version: "local", arch: model }, model_uuid: randomUUID() },
					});
					if (flags.is_final) {
						finalizedWords = upTo;
						finalizedToS = endS;
					}
				};
				const ear = new Ear(s.nextUtterance, hints, {
					word(run) {
						speechFinalSent = false;
						utteranceEndSent = false;
						lastWordEndS = wordTimes(run, run.revealed - 1).end;
						if (run.revealed - finalizedWords >= FINAL_EVERY_WORDS) results(run, run.revealed, { is_final: true, speech_final: false });
						else if (interim) results(run, run.revealed, { is_final: false, speech_final: false });
					},
					silence(run) {
						if (endpointingMs !== null && !speechFinalSent && run.silenceS * 1000 >= endpointingMs) {
							speechFinalSent = true;
							results(run, run.words.length, { is_final: true, speech_final: true });
						}
						if (utteranceEndMs !== null && !utteranceEndSent && run.silenceS * 1000 >= utteranceEndMs) {
							utteranceEndSent = true;
							send({ type: "UtteranceEnd", channel: [0, 1], last_word_end: lastWordEndS });
						}
						if ((endpointingMs === null || speechFinalSent) && (utteranceEndMs === null || utteranceEndSent)) {
							ear.end();
							finalizedWords = 0;
						}
					},
				});
				let idle: ReturnType<typeof setTimeout>;
				const heardFromClient = () => {
					clearTimeout(idle);
					idle = setTimeout(
						() =>
							s.closeByServer(
								1011,
								"Deepgram did not receive audio data or a text message within the timeout window. See https://dpgr.am/net0001",
							),
						idleTimeoutMs,
					);
				};
				heardFromClient();
				const flushOpen = (fromFinalize: boolean) => {
					const run = ear.end();
					if (run && finalizedWords < run.words.length)
						results(run, run.words.length, { is_final: true, speech_final: false, from_finalize: fromFinalize });
					finalizedWords = 0;
				};
				socket.on("message", (data, binary) => {
					heardFromClient();
					if (binary) {
						if (!raw) return s.closeByServer(1008, "DATA-0000: The payload cannot be decoded as audio.");
						ear.hear(data as Buffer);
						return;
					}
					let message: { type?: unknown };
					try {
						message = JSON.parse(data.toString());
					} catch {
						return;
					}
					if (message.type === "Finalize") flushOpen(true);
					else if (message.type === "CloseStream") {
						flushOpen(false);
						send({
							type: "Metadata",
							transaction_key: "deprecated",
							request_id: requestId,
							sha256: "0".repeat(64),
							created: new Date().toISOString(),
							duration: Number(ear.streamS.toFixed(3)),
							channels: 1,
						});
						clearTimeout(idle);
						s.closeByServer(1000, "");
					}
					// KeepAlive has no answer: it only resets the idle timer, done above.
				});
				socket.on("close", () => clearTimeout(idle));
			},
		},
		{ keys: options.keys ?? [], port: options.port },
	);
}
