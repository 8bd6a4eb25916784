/**
 * The bot's client of the speech service in the box (bot-host/speech, docs/speech.md): the
 * meeting mix streams to its `/v1/audio/stream`, and each utterance comes back as drafts
 * (`completed: false`) and then its confirmation under the same segment_id. The service's
 * voice gate sends nothing for silence, so nothing is emitted for it here either.
 */
import WebSocket from "ws";
import type { BotSegment } from "../../../src/bot-channel/protocol.ts";
import { whisperLanguage } from "../../speech/languages.ts";
import type { ClientMessage, ServerMessage } from "../../speech/stream-protocol.ts";
import { STREAM_PATH, STREAM_SAMPLE_RATE } from "../../speech/stream-protocol.ts";
import { admit, type EgressPolicy, pinnedLookup } from "../egress.ts";
import { PROVISIONAL_SPEAKER } from "../transcript.ts";
import type { SpeechEngine } from "./speech-engine.ts";

/** Audio kept while the connection opens (or reopens): 30 s. */
const MAX_BACKLOG_BYTES = 30 * STREAM_SAMPLE_RATE * 2;
const RECONNECT_AFTER_MS = 5_000;
const FLUSH_TIMEOUT_MS = 60_000;
/** A gap in the meeting audio longer than this is filled with silence, so stream time stays call time. */
const GAP_FILL_MS = 200;

/** Where segments say they came from (the `source` field of issue 36, when the wire carries it). */
const SOURCE: { source?: string } = { source: "builtin" };

export interface BuiltinEngineOptions {
	/** The speech service's base URL (the bot host's SPEECH_URL). */
	url: string;
	egress: EgressPolicy;
	language: string | null;
	task: "transcribe" | "translate";
	vocabulary: readonly string[];
	prefix: string;
	/** Milliseconds since the call started, for the segments' wall-clock times. */
	callOffsetMs: () => number;
	speakerBetween: (fromMs: number, toMs: number) => { speaker: string; source: BotSegment["speaker_source"] };
	emit: (segment: BotSegment) => void;
	log: (line: string) => void;
}

/** The speech service's address from the bot host's environment (SPEECH_URL), or null when the host has none. */
export function speechServiceUrl(env: Record<string, string | undefined>): string | null {
	const url = env.SPEECH_URL?.trim();
	return url ? url : null;
}

/**
 * The speech service is the operator's own (an internal address in a self-hosted fleet): the
 * guard for users' URLs does not refuse a private address for it; metadata addresses stay refused.
 */
export function builtinEgress(policy: EgressPolicy): EgressPolicy {
	return { ...policy, allowPrivate: true };
}

/** One connection: its socket, where its stream time 0 sits in the call, and its utterances. */
interface Connection {
	socket: WebSocket;
	ready: boolean;
	/** Call offset (ms) of the stream's first sample; set by the first audio sent. */
	zeroMs: number | null;
	sentSamples: number;
	/** The service's utterance ids to this bot's segment numbers. */
	ids: Map<number, number>;
	/** Settles when the service is ready (true) or the connection ended first (false). */
	opened: Promise<boolean>;
	settle: (ready: boolean) => void;
}

export class BuiltinEngine implements SpeechEngine {
	private readonly o: BuiltinEngineOptions;
	private current: Connection | null = null;
	private backlog: { pcm: Buffer; endMs: number }[] = [];
	private backlogBytes = 0;
	private lastAttemptAt = Number.NEGATIVE_INFINITY;
	private connecting: Promise<void> = Promise.resolve();
	private nextSegment = 0;
	private languageValue: string | null;

	constructor(o: BuiltinEngineOptions) {
		this.o = o;
		this.languageValue = o.language;
	}

	get language(): string | null {
		return this.languageValue;
	}

	set language(value: string | null) {
		this.languageValue = value;
		if (this.current?.ready) this.send(this.current, { type: "language", language: whisperLanguage(value) });
	}

	push(pcm: Buffer, endMs: number): void {
		const c = this.current;
		if (c?.ready) {
			this.sendAudio(c, pcm, endMs);
			return;
		}
		this.backlog.push({ pcm, endMs });
		this.backlogBytes += pcm.length;
		while (this.backlogBytes > MAX_BACKLOG_BYTES && this.backlog.length > 1) this.backlogBytes -= this.backlog.shift()?.pcm.length ?? 0;
		if (!c && Date.now() - this.lastAttemptAt >= RECONNECT_AFTER_MS) this.connecting = this.connect();
	}

	/**
	 * Confirms what is open, waits for every pass, and ends the stream (the bot is leaving, as for
	 * the other engines); audio pushed afterwards opens a new one.
	 */
	async flush(): Promise<void> {
		await this.connecting;
		const c = this.current;
		// Audio waiting for a connection still opening is sent once it is ready, then flushed.
		if (!c || !(await c.opened) || c.socket.readyState !== WebSocket.OPEN) return;
		await new Promise<void>((resolve) => {
			const timer = setTimeout(() => {
				c.socket.terminate();
				resolve();
			}, FLUSH_TIMEOUT_MS);
			c.socket.once("close", () => {
				clearTimeout(timer);
				resolve();
			});
			this.send(c, { type: "stop" });
		});
		if (this.current === c) this.current = null;
		// A stream ended on purpose: the next audio connects at once.
		this.lastAttemptAt = Number.NEGATIVE_INFINITY;
	}

	private async connect(): Promise<void> {
		this.lastAttemptAt = Date.now();
		const base = new URL(this.o.url);
		const endpoint = new URL(STREAM_PATH, base);
		let target: Awaited<ReturnType<typeof admit>>;
		try {
			target = await admit(endpoint, this.o.egress, "the speech service");
		} catch (err) {
			this.o.log(`speech service unreachable: ${(err as Error).message}`);
			return;
		}
		endpoint.protocol = base.protocol === "https:" ? "wss:" : "ws:";
		const socket = new WebSocket(endpoint, { lookup: pinnedLookup(target), maxPayload: 1024 * 1024, handshakeTimeout: 10_000 });
		let settle: (ready: boolean) => void = () => {};
		const opened = new Promise<boolean>((resolve) => {
			settle = resolve;
		});
		const c: Connection = { socket, ready: false, zeroMs: null, sentSamples: 0, ids: new Map(), opened, settle };
		this.current = c;
		socket.on("open", () =>
			this.send(c, {
				type: "start",
				language: whisperLanguage(this.languageValue),
				vocabulary: [...this.o.vocabulary],
				task: this.o.task,
				sample_rate: STREAM_SAMPLE_RATE,
				words: true,
			}),
		);
		socket.on("message", (data, isBinary) => {
			if (isBinary) return;
			let message: ServerMessage;
			try {
				message = JSON.parse(String(data)) as ServerMessage;
			} catch {
				this.o.log("speech service sent a frame that is not JSON; ignored");
				return;
			}
			this.receive(c, message);
		});
		socket.on("error", (err) => this.o.log(`speech stream error: ${err.message}`));
		socket.on("close", () => {
			c.settle(false);
			if (this.current === c) this.current = null;
		});
	}

	private receive(c: Connection, message: ServerMessage): void {
		switch (message.type) {
			case "ready": {
				c.ready = true;
				const waiting = this.backlog;
				this.backlog = [];
				this.backlogBytes = 0;
				for (const chunk of waiting) this.sendAudio(c, chunk.pcm, chunk.endMs);
				c.settle(true);
				return;
			}
			case "draft":
			case "final":
				this.o.emit(this.segment(c, message));
				return;
			case "dropped":
				c.ids.delete(message.id);
				this.o.log(`speech service dropped utterance ${message.id} (nothing usable in it)`);
				return;
			case "flushed":
			case "done":
				return;
			case "error":
				this.o.log(`speech service: ${message.detail}`);
				return;
		}
	}

	private sendAudio(c: Connection, pcm: Buffer, endMs: number): void {
		const ms = (pcm.length / 2 / STREAM_SAMPLE_RATE) * 1000;
		if (c.zeroMs === null) c.zeroMs = endMs - ms;
		// The meeting audio paused (a muted tab, a stall): silence keeps the stream's clock on the call's.
		const gapMs = endMs - ms - (c.zeroMs + (c.sentSamples / STREAM_SAMPLE_RATE) * 1000);
		if (gapMs > GAP_FILL_MS) {
			const silence = Buffer.alloc(Math.round((gapMs / 1000) * STREAM_SAMPLE_RATE) * 2);
			c.socket.send(silence);
			c.sentSamples += silence.length / 2;
		}
		c.socket.send(pcm);
		c.sentSamples += pcm.length / 2;
	}

	private send(c: Connection, message: ClientMessage): void {
		if (c.socket.readyState === WebSocket.OPEN) c.socket.send(JSON.stringify(message));
	}

	/** A draft or final as the bot's segment; the speaker is asked again each time (it may be known only later). */
	private segment(c: Connection, heard: Extract<ServerMessage, { type: "draft" | "final" }>): BotSegment {
		let n = c.ids.get(heard.id);
		if (n === undefined) {
			n = ++this.nextSegment;
			c.ids.set(heard.id, n);
		}
		if (heard.type === "final") c.ids.delete(heard.id);
		const zero = c.zeroMs ?? 0;
		const startMs = zero + heard.start * 1000;
		const endMs = zero + heard.end * 1000;
		const who = this.o.speakerBetween(startMs, endMs);
		const wallZero = Date.now() - this.o.callOffsetMs();
		const words = heard.type === "final" ? heard.words : undefined;
		return {
			segment_id: `${this.o.prefix}-b${n}`,
			speaker: who.source === "none" ? PROVISIONAL_SPEAKER : who.speaker,
			speaker_source: who.source,
			text: heard.text,
			start: startMs / 1000,
			end: endMs / 1000,
			language: heard.language ?? this.languageValue,
			completed: heard.type === "final",
			...(words?.length ? { words: words.map((w) => ({ word: w.word, start: zero / 1000 + w.start, end: zero / 1000 + w.end })) } : {}),
			absolute_start_time: new Date(wallZero + startMs).toISOString(),
			absolute_end_time: new Date(wallZero + endMs).toISOString(),
			...SOURCE,
		};
	}
}
