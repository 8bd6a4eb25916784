/**
 * What the streaming providers' adapters (deepgram.ts, assemblyai.ts) share: one WebSocket at a
 * time to the Worker's relay (docs/bot-channel.md#streaming-transcription), authenticated with the
 * channel token, carrying the meeting audio as binary PCM16 frames and the provider's JSON both
 * ways. Silence is not sent beyond a short tail (the provider needs the tail to see the end of
 * speech; Deepgram bills by audio sent), so the provider's clock runs on the audio sent only, and
 * each connection maps its stream times back to call times. A dropped connection reconnects with
 * backoff and its open utterance is confirmed as last heard; a refused token stops it for good.
 */
import WebSocket from "ws";
import type { BotSegment } from "../../../src/bot-channel/protocol.ts";
import { PROVISIONAL_SPEAKER } from "../transcript.ts";
import { rms } from "../wav.ts";
import { type EngineOptions, SAMPLE_RATE, type SpeechEngine } from "./engine.ts";

const FRAME_MS = 100;
const FRAME_BYTES = (SAMPLE_RATE / 1000) * FRAME_MS * 2;
/** The same level the OpenAI-compatible engine cuts utterances at. */
const VOICED_RMS = 0.01;
/** Silence sent after speech, so the provider can end the utterance (Deepgram's utterance_end_ms is 1000). */
const TAIL_FRAMES = 20;
/** Audio kept while the connection opens; older audio is dropped. */
const MAX_QUEUED_FRAMES = 50;
const MAX_BACKOFF_MS = 30_000;
/** How long flush waits for the provider's last results after the close message. */
const FLUSH_WAIT_MS = 5_000;

export interface StreamOptions extends EngineOptions {
	/** The Worker's relay (`transcription_stream.url`) and the channel token. */
	url: string;
	token: string;
}

/** One heard stretch, in the provider's stream seconds. */
export interface Heard {
	text: string;
	startS: number;
	endS: number;
	language: string | null;
	confidence: number | null;
	words: { word: string; start: number; end: number; probability?: number }[];
}

/** Where a connection's stream time runs: each run of frames sent without a gap, and the call time it began at. */
interface Run {
	streamMs: number;
	callMs: number;
}

/** One connection's state: its socket, its clock, and the utterances it has open. */
export class StreamConnection {
	readonly socket: WebSocket;
	readonly id: number;
	private readonly runs: Run[] = [];
	private sentMs = 0;
	/** When the last audio or keepalive went out: a stream the provider hears nothing on for long is closed. */
	lastSentAt = Date.now();
	private readonly drafts = new Map<string, { heard: Heard; confirmed: boolean }>();

	private readonly engine: StreamingEngine;

	constructor(engine: StreamingEngine, id: number, url: string, token: string) {
		this.engine = engine;
		this.id = id;
		// The token goes in the header only: URLs end up in logs.
		this.socket = new WebSocket(url, { headers: { Authorization: `Bearer ${token}` } });
	}

	/** Sends one frame, noting where in the call it was heard (`callMs`: the call offset of its first sample). */
	send(frame: Buffer, callMs: number): void {
		const last = this.runs.at(-1);
		const expected = last ? last.callMs + (this.sentMs - last.streamMs) : null;
		if (expected === null || Math.abs(expected - callMs) > FRAME_MS / 2) this.runs.push({ streamMs: this.sentMs, callMs });
		this.sentMs += (frame.length / 2 / SAMPLE_RATE) * 1000;
		this.lastSentAt = Date.now();
		this.socket.send(frame, { binary: true });
	}

	/** A stream time (seconds) as call time (ms). */
	callMs(streamS: number): number {
		const at = streamS * 1000;
		let run: Run | undefined = this.runs[0];
		for (const r of this.runs) if (r.streamMs <= at) run = r;
		return run ? run.callMs + (at - run.streamMs) : at;
	}

	/** A draft (or its confirmation) of the utterance `key`; nothing for empty text or an utterance already confirmed. */
	heard(key: string, heard: Heard, completed: boolean): void {
		const open = this.drafts.get(key);
		if (open?.confirmed || heard.text.trim() === "") return;
		this.drafts.set(key, { heard, confirmed: completed });
		this.engine.emitSegment(this, key, heard, completed);
	}

	/** The connection ended: what it left open is confirmed as last heard, so no draft stays a draft. */
	confirmOpen(): void {
		for (const [key, d] of this.drafts) if (!d.confirmed) this.heard(key, d.heard, true);
	}
}

export abstract class StreamingEngine implements SpeechEngine {
	#language: string | null;
	protected readonly o: StreamOptions;
	/** The engine's name: each segment's `source`. */
	protected abstract readonly source: BotSegment["source"] & string;
	private connection: StreamConnection | null = null;
	private connections = 0;
	private pending = Buffer.alloc(0);
	private queued: { frame: Buffer; callMs: number }[] = [];
	private tail = 0;
	private backoffMs = 1_000;
	private retryAt = 0;
	private refused = false;
	private closing: Promise<void>[] = [];
	private keepalive: ReturnType<typeof setInterval> | null = null;

	constructor(o: StreamOptions) {
		this.o = o;
		this.#language = o.language;
	}

	get language(): string | null {
		return this.#language;
	}

	/** A new language is a new connection (the providers take it when the stream opens); the old one finishes what it heard. */
	set language(value: string | null) {
		if (value === this.#language) return;
		this.#language = value;
		if (this.connection) this.finish(this.connection);
	}

	/** The provider's query for a new connection (model, audio format, language, vocabulary). */
	protected abstract query(): URLSearchParams;
	/** One text message from the provider. */
	protected abstract received(connection: StreamConnection, message: Record<string, unknown>): void;
	/** The provider's message that ends the stream after its last results. */
	protected abstract readonly closeMessage: string;
	/** The provider's message that keeps a stream open while no audio is sent, and how often; null for none. */
	protected abstract readonly keepAlive: { message: string; everyMs: number } | null;

	push(pcm: Buffer, endMs: number): void {
		if (this.refused) return;
		this.pending = Buffer.concat([this.pending, pcm]);
		let frameStart = endMs - (this.pending.length / 2 / SAMPLE_RATE) * 1000;
		while (this.pending.length >= FRAME_BYTES) {
			const frame = Buffer.from(this.pending.subarray(0, FRAME_BYTES));
			this.pending = this.pending.subarray(FRAME_BYTES);
			this.frame(frame, frameStart);
			frameStart += FRAME_MS;
		}
	}

	async flush(): Promise<void> {
		this.stopKeepAlive();
		if (this.connection) this.finish(this.connection);
		await Promise.all(this.closing);
	}

	private frame(frame: Buffer, callMs: number): void {
		if (rms(frame) >= VOICED_RMS) this.tail = TAIL_FRAMES;
		else if (this.tail > 0) this.tail--;
		else return;
		const connection = this.connection ?? this.connect();
		if (!connection) return;
		if (connection.socket.readyState === WebSocket.OPEN) connection.send(frame, callMs);
		else this.queued = [...this.queued.slice(-(MAX_QUEUED_FRAMES - 1)), { frame, callMs }];
	}

	private connect(): StreamConnection | null {
		if (Date.now() < this.retryAt) return null;
		const url = new URL(this.o.url);
		for (const [key, value] of this.query()) url.searchParams.append(key, value);
		const connection = new StreamConnection(this, ++this.connections, url.toString(), this.o.token);
		this.connection = connection;
		const socket = connection.socket;
		let closed!: () => void;
		this.closing.push(new Promise<void>((resolve) => (closed = resolve)));
		socket.on("open", () => {
			this.backoffMs = 1_000;
			for (const q of this.queued) connection.send(q.frame, q.callMs);
			this.queued = [];
			this.startKeepAlive();
		});
		socket.on("message", (data, binary) => {
			if (binary) return;
			let message: unknown;
			try {
				message = JSON.parse(data.toString());
			} catch {
				return this.o.log(`${this.source}: a message that is not JSON`);
			}
			if (typeof message === "object" && message !== null) this.received(connection, message as Record<string, unknown>);
		});
		socket.on("unexpected-response", (_req, res) => {
			const status = res.statusCode ?? 0;
			res.resume();
			socket.terminate();
			if (status === 401 || status === 403) {
				this.refused = true;
				this.o.log(`${this.source}: the relay refused the bot (${status}); transcription stops`);
			} else this.o.log(`${this.source}: the relay answered ${status}`);
		});
		socket.on("error", (err) => this.o.log(`${this.source}: ${err.message}`));
		socket.on("close", (code, reason) => {
			connection.confirmOpen();
			if (this.connection === connection) {
				this.connection = null;
				this.stopKeepAlive();
				// An unexpected end: the next voiced frame reconnects after the backoff.
				this.retryAt = Date.now() + this.backoffMs;
				this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
				if (code !== 1000) this.o.log(`${this.source}: the stream closed (${code}${reason.length ? `: ${reason.toString()}` : ""})`);
			}
			closed();
		});
		return connection;
	}

	/** Ends a connection the provider's way: it sends what is left, then closes; past FLUSH_WAIT_MS it is cut. */
	private finish(connection: StreamConnection): void {
		if (this.connection === connection) this.connection = null;
		this.stopKeepAlive();
		const socket = connection.socket;
		if (socket.readyState === WebSocket.OPEN) socket.send(this.closeMessage);
		else if (socket.readyState === WebSocket.CONNECTING) socket.once("open", () => socket.send(this.closeMessage));
		const cut = setTimeout(() => socket.terminate(), FLUSH_WAIT_MS);
		cut.unref();
		socket.once("close", () => clearTimeout(cut));
	}

	private startKeepAlive(): void {
		const keepAlive = this.keepAlive;
		if (!keepAlive || this.keepalive) return;
		this.keepalive = setInterval(
			() => {
				const connection = this.connection;
				if (!connection || connection.socket.readyState !== WebSocket.OPEN) return;
				// Audio keeps the stream open by itself; only a silent stretch (nothing sent) needs the message.
				if (Date.now() - connection.lastSentAt < keepAlive.everyMs) return;
				connection.socket.send(keepAlive.message);
				connection.lastSentAt = Date.now();
			},
			Math.min(500, keepAlive.everyMs / 2),
		);
		this.keepalive.unref();
	}

	private stopKeepAlive(): void {
		if (this.keepalive) clearInterval(this.keepalive);
		this.keepalive = null;
	}

	/** A heard stretch as a segment in call time, under an id of its connection and utterance. */
	emitSegment(connection: StreamConnection, key: string, heard: Heard, completed: boolean): void {
		const startMs = connection.callMs(heard.startS);
		const endMs = Math.max(startMs, connection.callMs(heard.endS));
		const who = this.o.speakerBetween(startMs, endMs);
		const offset = Date.now() - this.o.callOffsetMs();
		const words = heard.words.map((w) => ({ ...w, start: connection.callMs(w.start) / 1000, end: connection.callMs(w.end) / 1000 }));
		this.o.emit({
			segment_id: `${this.o.prefix}-${this.source}${connection.id}-${key}`,
			speaker: who.source === "none" ? PROVISIONAL_SPEAKER : who.speaker,
			speaker_source: who.source,
			text: heard.text.trim(),
			start: startMs / 1000,
			end: endMs / 1000,
			language: heard.language ?? this.#language,
			completed,
			source: this.source,
			...(heard.confidence !== null ? { confidence: Math.min(1, Math.max(0, heard.confidence)) } : {}),
			...(words.length ? { words } : {}),
			absolute_start_time: new Date(offset + startMs).toISOString(),
			absolute_end_time: new Date(offset + endMs).toISOString(),
		});
	}
}
