/**
 * A local AssemblyAI Universal-Streaming API (v3, `wss://streaming.assemblyai.com/v3/ws`), as
 * AssemblyAI publishes it (assemblyai.com/docs/api-reference/streaming-api,
 * /docs/streaming/universal-streaming/message-sequence, /docs/streaming/common-session-errors-and-closures):
 * - auth: the API key as the whole `Authorization` header (or a temporary `token` query parameter);
 *   a bad one is told after the upgrade, with an `Error` message and a close (1008).
 * - `Begin` {id, expires_at} first; then binary PCM (`encoding` pcm_s16le at `sample_rate`).
 * - `Turn` messages per turn (`turn_order`): `end_of_turn: false` while it grows (its finished words
 *   in `transcript`, every word so far in `words` with `word_is_final`, times in ms); after
 *   `min_end_of_turn_silence_when_confident` ms of silence (400 by default) the end of the turn
 *   (`end_of_turn: true`), and with `format_turns=true` a second one with `turn_is_formatted: true`
 *   (cased and punctuated). `keyterms_prompt` (a JSON list) spells the words it matches;
 *   `language_detection=true` adds `language_code` and `language_confidence`.
 * - `Terminate`: the open turn ends, then `Termination` {audio_duration_seconds,
 *   session_duration_seconds} and close 1000.
 * The recogniser is the shared stand-in (streaming-stt.ts): it hears energy, not words.
 */
import { randomUUID } from "node:crypto";
import { Ear, type Run, type StreamingSttServer, startStreamingSttServer, wordTimes } from "./streaming-stt.ts";

export function startAssemblyAIServer(options: { keys?: string[]; port?: number } = {}): Promise<StreamingSttServer> {
	return startStreamingSttServer(
		{
			path: "/v3/ws",
			keyOf: (req, url) => req.headers.authorization?.trim() || url.searchParams.get("token"),
			session(socket, s) {
				const send = (message: unknown) => socket.send(JSON.stringify(message));
				if (!s.known) {
					send({ type: "Error", error_code: 1008, error: "Unauthorized connection: Invalid API key" });
					s.closeByServer(1008, "Unauthorized connection");
					return;
				}
				const q = s.url.searchParams;
				const openedAt = Date.now();
				const formatTurns = q.get("format_turns") === "true";
				const detect = q.get("language_detection") === "true";
				const endSilenceMs = Number(q.get("min_end_of_turn_silence_when_confident") ?? 400);
				let hints: string[] = [];
				try {
					const parsed: unknown = JSON.parse(q.get("keyterms_prompt") ?? "[]");
					if (Array.isArray(parsed)) hints = parsed.filter((t): t is string => typeof t === "string");
				} catch {
					// An unreadable list boosts nothing.
				}
				let turnOrder = 0;
				const turn = (run: Run, endOfTurn: boolean, formatted: boolean) => {
					const said = run.words.slice(0, run.revealed);
					// A formatted turn's words are the formatted transcript's: cased and punctuated.
					const shown = (text: string, i: number) =>
						!formatted
							? text.toLowerCase()
							: `${i === 0 ? `${text[0]?.toUpperCase()}${text.slice(1)}` : text}${i === said.length - 1 ? "." : ""}`;
					const words = said.map((text, i) => {
						const { start, end } = wordTimes(run, i);
						const final = endOfTurn || i < run.revealed - 1;
						return {
							start: Math.round(start * 1000),
							end: Math.round(end * 1000),
							text: shown(text, i),
							confidence: 0.97,
							word_is_final: final,
						};
					});
					const transcript = words
						.filter((w) => w.word_is_final)
						.map((w) => w.text)
						.join(" ");
					send({
						turn_order: turnOrder,
						turn_is_formatted: formatted,
						end_of_turn: endOfTurn,
						transcript,
						end_of_turn_confidence: endOfTurn ? 0.9 : 0.01,
						words,
						utterance: endOfTurn ? transcript : "",
						...(detect ? { language_code: "en", language_confidence: 0.95 } : {}),
						type: "Turn",
					});
				};
				const endTurn = () => {
					const run = ear.end();
					if (!run) return;
					turn(run, true, false);
					if (formatTurns) turn(run, true, true);
					turnOrder++;
				};
				const ear = new Ear(s.nextUtterance, hints, {
					word: (run) => turn(run, false, false),
					silence: (run) => {
						if (run.silenceS * 1000 >= endSilenceMs) endTurn();
					},
				});
				send({ type: "Begin", id: randomUUID(), expires_at: Math.floor(openedAt / 1000) + 3 * 3600 });
				socket.on("message", (data, binary) => {
					if (binary) return ear.hear(data as Buffer);
					let message: { type?: unknown };
					try {
						message = JSON.parse(data.toString());
					} catch {
						return;
					}
					if (message.type === "ForceEndpoint") endTurn();
					if (message.type === "Terminate") {
						endTurn();
						send({
							type: "Termination",
							audio_duration_seconds: Math.round(ear.streamS),
							session_duration_seconds: Math.round((Date.now() - openedAt) / 1000),
						});
						s.closeByServer(1000, "");
					}
				});
			},
		},
		{ keys: options.keys ?? [], port: options.port },
	);
}
