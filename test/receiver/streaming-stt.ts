/**
 * What the local streaming speech-to-text providers (deepgram-server.ts, assemblyai-server.ts)
 * share: an HTTP server that upgrades their streaming path to a WebSocket after the provider's own
 * auth check, a stand-in recogniser, and what each session received, for tests to read.
 *
 * The recogniser cannot understand speech: it hears speech by energy (100 ms frames of 16 kHz
 * PCM16 at or above RMS 0.01) and says, for each voiced stretch, the next utterance scripted for
 * the key the session authenticated with (`POST /__script {key, utterances}`), one word per
 * 300 ms of voiced audio, each word timed where it was revealed in the stream. A hinted term
 * (the provider's vocabulary parameter) replaces a scripted word it matches but for case, as a
 * boosted term would. Control endpoints, for tests in workerd too:
 *   POST /__script   {key, utterances: string[]}   queue utterances for sessions with that key
 *   GET  /__sessions?key=k                         → {sessions: [SessionRecord]}
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { createRequire } from "node:module";
import type { Duplex } from "node:stream";
import type { WebSocket, WebSocketServer as WebSocketServerType } from "ws";
import { json, listenLocally, readBody } from "./node-http.ts";

// Loaded as CommonJS: the worker tier's global setup runs under Vite, whose resolution of `ws` gives its browser stub.
const { WebSocketServer } = createRequire(import.meta.url)("ws") as { WebSocketServer: typeof WebSocketServerType };

export const SAMPLE_RATE = 16_000;
const FRAME_BYTES = (SAMPLE_RATE / 10) * 2;
const VOICED_RMS = 0.01;
export const WORD_S = 0.3;
const DEFAULT_UTTERANCE = "testing one two three";

/** What one session received: for tests to check what the client asked for and sent. */
export interface SessionRecord {
	id: string;
	key: string | null;
	authorization: string | null;
	query: Record<string, string[]>;
	/** Text (JSON) messages the client sent, parsed. */
	messages: unknown[];
	audioBytes: number;
	closed: { code: number; reason: string; by: "client" | "server" } | null;
}

/** A voiced stretch being heard: its words and how many of them have been said so far. */
export interface Run {
	startS: number;
	words: string[];
	revealed: number;
	voicedS: number;
	silenceS: number;
}

/** One session's ear: splits the stream into 100 ms frames and tells the protocol what it heard. */
export class Ear {
	streamS = 0;
	run: Run | null = null;
	private pending = Buffer.alloc(0);
	private readonly nextUtterance: () => string;
	private readonly hints: string[];
	private readonly on: { word(run: Run): void; silence(run: Run): void };

	constructor(nextUtterance: () => string, hints: string[], on: { word(run: Run): void; silence(run: Run): void }) {
		this.nextUtterance = nextUtterance;
		this.hints = hints;
		this.on = on;
	}

	hear(audio: Buffer): void {
		this.pending = Buffer.concat([this.pending, audio]);
		while (this.pending.length >= FRAME_BYTES) {
			const frame = this.pending.subarray(0, FRAME_BYTES);
			this.pending = this.pending.subarray(FRAME_BYTES);
			const voiced = rms(frame) >= VOICED_RMS;
			const frameStart = this.streamS;
			this.streamS += 0.1;
			if (voiced) {
				if (!this.run) this.run = { startS: frameStart, words: this.spelled(this.nextUtterance()), revealed: 0, voicedS: 0, silenceS: 0 };
				const run = this.run;
				run.voicedS += 0.1;
				run.silenceS = 0;
				const due = Math.min(run.words.length, Math.floor(run.voicedS / WORD_S) + 1);
				while (run.revealed < due) {
					run.revealed++;
					this.on.word(run);
				}
			} else if (this.run) {
				this.run.silenceS += 0.1;
				this.on.silence(this.run);
			}
		}
	}

	/** The stretch is over: what is left of its words is said. */
	end(): Run | null {
		const run = this.run;
		this.run = null;
		if (run) run.revealed = run.words.length;
		return run;
	}

	private spelled(text: string): string[] {
		return text
			.split(/\s+/)
			.filter(Boolean)
			.map((w) => this.hints.find((h) => h.toLowerCase() === w.toLowerCase()) ?? w);
	}
}

/** A word's place in the stream: one per WORD_S from the start of its stretch. */
export const wordTimes = (run: Run, i: number) => ({ start: run.startS + i * WORD_S, end: run.startS + i * WORD_S + WORD_S * 0.8 });

function rms(frame: Buffer): number {
	let sum = 0;
	const n = frame.length / 2;
	for (let i = 0; i < n; i++) {
		const v = frame.readInt16LE(i * 2) / 32768;
		sum += v * v;
	}
	return Math.sqrt(sum / n);
}

export interface Protocol {
	/** The path the provider's streaming API answers on. */
	path: string;
	/** The key the request authenticates with, or null for none (the provider's own header format). */
	keyOf(req: IncomingMessage, url: URL): string | null;
	/** Refuses a handshake the way the provider does, or null to accept it. */
	refuseHandshake?(key: string | null, known: boolean, url: URL): { status: number; body: unknown } | null;
	/** A new session: the protocol's handlers for its socket. */
	session(socket: WebSocket, s: SessionContext): void;
}

export interface SessionContext {
	record: SessionRecord;
	url: URL;
	/** Whether the key is one the server was given. */
	known: boolean;
	nextUtterance(): string;
	closeByServer(code: number, reason: string): void;
}

export interface StreamingSttServer {
	url: string;
	/** The same, as ws:// (what a client configured with the provider's wss:// base would use locally). */
	wsUrl: string;
	sessions: SessionRecord[];
	script(key: string, utterances: string[]): void;
	close(): Promise<void>;
}

export async function startStreamingSttServer(
	protocol: Protocol,
	options: { keys: string[]; port?: number } = { keys: [] },
): Promise<StreamingSttServer> {
	const keys = new Set(options.keys);
	const scripts = new Map<string, string[]>();
	const sessions: SessionRecord[] = [];
	const refreshers: (() => boolean)[] = [];
	const script = (key: string, utterances: string[]) => {
		keys.add(key);
		scripts.set(key, [...(scripts.get(key) ?? []), ...utterances]);
	};
	const wss = new WebSocketServer({ noServer: true });
	const server = createServer(async (req, res) => {
		const url = new URL(req.url ?? "/", "http://localhost");
		if (req.method === "POST" && url.pathname === "/__script") {
			const body = JSON.parse((await readBody(req)).toString() || "{}") as { key?: string; utterances?: string[] };
			if (!body.key || !Array.isArray(body.utterances)) return json(res, 400, { error: "key and utterances" });
			script(body.key, body.utterances);
			return json(res, 200, { ok: true });
		}
		if (req.method === "GET" && url.pathname === "/__sessions") {
			for (const refresh of refreshers) refresh();
			const key = url.searchParams.get("key");
			return json(res, 200, { sessions: sessions.filter((s) => key === null || s.key === key) });
		}
		// A plain request to the streaming path is not a stream.
		json(res, url.pathname === protocol.path ? 426 : 404, { error: "Expected a WebSocket upgrade" });
	});
	server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
		const url = new URL(req.url ?? "/", "http://localhost");
		if (url.pathname !== protocol.path) {
			socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
			return;
		}
		const key = protocol.keyOf(req, url);
		const known = key !== null && keys.has(key);
		const refusal = protocol.refuseHandshake?.(key, known, url) ?? null;
		if (refusal) {
			const body = JSON.stringify(refusal.body);
			socket.end(
				`HTTP/1.1 ${refusal.status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
			);
			return;
		}
		wss.handleUpgrade(req, socket, head, (ws) => {
			const record: SessionRecord = {
				id: randomUUID(),
				key,
				authorization: req.headers.authorization ?? null,
				query: [...url.searchParams.keys()].reduce<Record<string, string[]>>((q, k) => {
					q[k] = url.searchParams.getAll(k);
					return q;
				}, {}),
				messages: [],
				audioBytes: 0,
				closed: null,
			};
			sessions.push(record);
			// A client's close frame is in while the TCP end may lag behind (workerd's does): the session is over then.
			const closingByClient = () => {
				if (record.closed) return record.closed.by === "client";
				// ws's own note that the peer's close frame arrived (it has no event for that alone).
				const frame = ws as unknown as { _closeFrameReceived?: boolean; _closeCode?: number; _closeMessage?: Buffer };
				if (!frame._closeFrameReceived) return false;
				record.closed = { code: frame._closeCode ?? 1005, reason: frame._closeMessage?.toString() ?? "", by: "client" };
				return true;
			};
			refreshers.push(closingByClient);
			ws.on("message", (data, binary) => {
				if (binary) record.audioBytes += (data as Buffer).length;
				else {
					try {
						record.messages.push(JSON.parse(data.toString()));
					} catch {
						record.messages.push(data.toString());
					}
				}
			});
			ws.on("close", (code, reason) => {
				record.closed ??= { code, reason: reason.toString(), by: "client" };
			});
			protocol.session(ws, {
				record,
				url,
				known,
				nextUtterance: () => (key !== null ? scripts.get(key)?.shift() : undefined) ?? DEFAULT_UTTERANCE,
				closeByServer: (code, reason) => {
					// The client closed first: that session is over, and nothing of the server's closes it again.
					if (closingByClient()) return;
					record.closed ??= { code, reason, by: "server" };
					ws.close(code, reason);
				},
			});
		});
	});
	const listening = await listenLocally(server, options.port ?? 0);
	return {
		url: listening.url,
		wsUrl: listening.url.replace(/^http/, "ws"),
		sessions,
		script,
		close: async () => {
			for (const client of wss.clients) client.terminate();
			await listening.close();
		},
	};
}
