/**
 * The streaming providers' adapters (bot-host/bot/transcription/deepgram.ts, assemblyai.ts) against
 * local servers that follow each provider's published streaming protocol (test/receiver/), through
 * a relay standing in for the Worker's (which adds the provider's key; its own tests are
 * test/worker/bots/transcription-stream.test.ts): drafts then confirmations, call-time timestamps
 * across silence that is not sent, the vocabulary as the provider's parameter, keepalive while
 * silent, and the provider's close on flush.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { BotSegment, SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { startAssemblyAIServer } from "../../test/receiver/assemblyai-server.ts";
import { startDeepgramServer } from "../../test/receiver/deepgram-server.ts";
import { until } from "../../test/shared/wait.ts";
import { MeetingAudio } from "../bot/audio.ts";
import { CaptionTracker } from "../bot/transcript.ts";
import { spawnEngine, transcriptSource } from "../bot/transcript-source.ts";
import { AssemblyAIEngine } from "../bot/transcription/assemblyai.ts";
import { CaptionsWithEngine } from "../bot/transcription/captions-with-engine.ts";
import { DeepgramEngine } from "../bot/transcription/deepgram.ts";
import { type EngineOptions, SAMPLE_RATE } from "../bot/transcription/engine.ts";
import { relayTo } from "./stream-relay.ts";

const CHANNEL_TOKEN = "channel-token-for-the-relay";
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
	while (closers.length) await closers.pop()?.();
});

/** A tone for `voicedMs`, then silence for `silenceMs`. */
function burst(voicedMs: number, silenceMs: number): Buffer {
	const voiced = Math.round((SAMPLE_RATE * voicedMs) / 1000);
	const pcm = Buffer.alloc((voiced + Math.round((SAMPLE_RATE * silenceMs) / 1000)) * 2);
	for (let i = 0; i < voiced; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / SAMPLE_RATE) * 8000), i * 2);
	return pcm;
}

/** Feeds PCM in 100 ms chunks from call offset `fromMs`, as the page delivers it; the call offset reached. */
function feed(engine: { push(pcm: Buffer, endMs: number): void }, pcm: Buffer, fromMs: number): number {
	const chunk = (SAMPLE_RATE / 10) * 2;
	let at = fromMs;
	for (let i = 0; i < pcm.length; i += chunk) {
		at += 100;
		engine.push(pcm.subarray(i, i + chunk), at);
	}
	return at;
}

function options(url: string, segments: BotSegment[], extra: Partial<EngineOptions> = {}, logs: string[] = []) {
	return {
		url,
		token: CHANNEL_TOKEN,
		prefix: "b",
		language: null,
		task: "transcribe" as const,
		vocabulary: [],
		callOffsetMs: () => 0,
		speakerBetween: () => ({ speaker: "Ann", source: "active_speaker" as const }),
		emit: (s: BotSegment) => segments.push(s),
		log: (line: string) => logs.push(line),
		egress: { allowPrivate: true },
		...extra,
	};
}

async function deepgram(o: { idleTimeoutMs?: number } = {}) {
	const server = await startDeepgramServer({ keys: ["dg-key"], idleTimeoutMs: o.idleTimeoutMs });
	closers.push(() => server.close());
	return { server, relay: await relayTo(server, "/v1/listen", "Token dg-key", CHANNEL_TOKEN, closers) };
}

async function assemblyai() {
	const server = await startAssemblyAIServer({ keys: ["aai-key"] });
	closers.push(() => server.close());
	return { server, relay: await relayTo(server, "/v3/ws", "aai-key", CHANNEL_TOKEN, closers) };
}

const confirmed = (segments: BotSegment[]) => segments.filter((s) => s.completed);

describe("the Deepgram adapter", () => {
	it("sends drafts as Deepgram's interim results come, then confirms the utterance at speech_final, in call time", async () => {
		const { server, relay } = await deepgram();
		server.script("dg-key", ["Please ask Siobhan about the budget"]);
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine(
			options(relay.url, segments, { vocabulary: ["Siobhan", "a term far too long to be a Deepgram keyterm at all, really"] }),
		);
		// 5 s into the call: 2.1 s of speech (seven words at 0.3 s each), then 2 s of silence.
		feed(engine, burst(2_100, 2_000), 5_000);
		await until("confirmed(segments).length === 1", () => confirmed(segments).length === 1, 5_000);
		const final = confirmed(segments)[0] as BotSegment;
		expect(final.text).toBe("Please ask Siobhan about the budget");
		expect(final.source).toBe("deepgram");
		const drafts = segments.filter((s) => !s.completed);
		expect(drafts.length).toBeGreaterThan(1);
		for (const d of drafts) expect(d.segment_id).toBe(final.segment_id);
		expect(segments.at(-1)).toBe(final);
		// Timestamps are the call's: the stream began with the first voiced frame, 5 s in.
		expect(final.start).toBeCloseTo(5, 3);
		expect(final.words?.[0]).toMatchObject({ word: "Please", start: expect.closeTo(5, 3), probability: 0.98 });
		expect(final.words?.at(-1)?.end).toBeCloseTo(final.end, 3);
		const session = server.sessions[0];
		expect(session?.authorization).toBe("Token dg-key");
		expect(session?.query).toMatchObject({
			model: ["nova-3"],
			encoding: ["linear16"],
			sample_rate: ["16000"],
			interim_results: ["true"],
			utterance_end_ms: ["1000"],
			language: ["multi"],
			keyterm: ["Siobhan"],
		});
		await engine.flush();
	});

	it("sends no silence beyond a tail, and maps the provider's stream time back to the call across what was not sent", async () => {
		const { server, relay } = await deepgram();
		server.script("dg-key", ["first words", "second words"]);
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine(options(relay.url, segments, { language: "en" }));
		let at = feed(engine, burst(900, 10_000), 0);
		// Ten seconds of silence take ten seconds: the stream is open by the time the second stretch comes.
		await until("the first stretch confirmed", () => confirmed(segments).length === 1, 5_000);
		at = feed(engine, burst(900, 3_000), at);
		await until("confirmed(segments).length === 2", () => confirmed(segments).length === 2, 5_000);
		const [first, second] = confirmed(segments) as [BotSegment, BotSegment];
		expect(first.text).toBe("first words");
		expect(second.text).toBe("second words");
		expect(first.start).toBeCloseTo(0, 3);
		// The second stretch was spoken 10.9 s into the call, though the provider heard it 2.9 s into its stream.
		expect(second.start).toBeCloseTo(10.9, 3);
		expect(second.words?.[0]?.start).toBeCloseTo(10.9, 3);
		expect(first.segment_id).not.toBe(second.segment_id);
		expect(second.language).toBe("en");
		await engine.flush();
		const pushedBytes = (at / 1000) * SAMPLE_RATE * 2;
		expect(server.sessions[0]?.audioBytes).toBeLessThan(pushedBytes / 2);
		expect(server.sessions[0]?.query.language).toEqual(["en"]);
	});

	it("holds a silent stream open with KeepAlive, which Deepgram otherwise closes (NET-0001)", async () => {
		const { server, relay } = await deepgram({ idleTimeoutMs: 1_500 });
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine({ ...options(relay.url, segments), keepAliveMs: 500 });
		feed(engine, burst(600, 2_500), 0);
		await until("confirmed(segments).length === 1", () => confirmed(segments).length === 1, 5_000);
		// Nothing pushed now: the capture is quiet for longer than the provider's idle timeout.
		await new Promise((resolve) => setTimeout(resolve, 2_500));
		const session = server.sessions[0];
		expect(session?.closed).toBeNull();
		expect(session?.messages).toContainEqual({ type: "KeepAlive" });
		await engine.flush();
		expect(session?.messages.at(-1)).toEqual({ type: "CloseStream" });
		expect(session?.closed).toMatchObject({ code: 1000, by: "server" });
		expect(server.sessions).toHaveLength(1);
	});

	it("confirms what is still open when flushed: CloseStream, Deepgram's last results, then its close", async () => {
		const { server, relay } = await deepgram();
		server.script("dg-key", ["cut off mid sentence"]);
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine(options(relay.url, segments));
		feed(engine, burst(1_200, 0), 0);
		await until("segments.length > 0", () => segments.length > 0, 5_000);
		await engine.flush();
		expect(confirmed(segments)).toEqual([expect.objectContaining({ text: "cut off mid sentence", completed: true, source: "deepgram" })]);
		expect(server.sessions[0]?.messages).toEqual([{ type: "CloseStream" }]);
		expect(server.sessions[0]?.closed).toMatchObject({ code: 1000, by: "server" });
	});

	it("hints an older model's vocabulary as keywords, as keyterm prompting is nova-3's", async () => {
		const { server, relay } = await deepgram();
		server.script("dg-key", ["ask siobhan"]);
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine({ ...options(relay.url, segments, { vocabulary: ["Siobhan"], language: "en" }), model: "nova-2" });
		feed(engine, burst(600, 2_000), 0);
		await until("confirmed(segments).length === 1", () => confirmed(segments).length === 1, 5_000);
		expect(confirmed(segments)[0]?.text).toBe("ask Siobhan");
		expect(server.sessions[0]?.query).toMatchObject({ model: ["nova-2"], keywords: ["Siobhan"] });
		expect(server.sessions[0]?.query.keyterm).toBeUndefined();
		await engine.flush();
	});

	it("opens a new stream in the new language when the meeting's language changes, the old one finishing what it heard", async () => {
		const { server, relay } = await deepgram();
		server.script("dg-key", ["before the change", "después del cambio"]);
		const segments: BotSegment[] = [];
		const engine = new DeepgramEngine(options(relay.url, segments, { language: "en" }));
		let at = feed(engine, burst(900, 2_000), 0);
		await until("the English stretch confirmed", () => confirmed(segments).length === 1, 5_000);
		engine.language = "es";
		at = feed(engine, burst(900, 2_000), at);
		await until("the Spanish stretch confirmed", () => confirmed(segments).length === 2, 5_000);
		await engine.flush();
		expect(server.sessions.map((s) => s.query.language)).toEqual([["en"], ["es"]]);
		expect(server.sessions[0]?.messages).toEqual([{ type: "CloseStream" }]);
		expect(server.sessions[0]?.closed).toMatchObject({ code: 1000, by: "server" });
		const [before, after] = confirmed(segments) as [BotSegment, BotSegment];
		expect([before.text, before.language, after.text, after.language]).toEqual(["before the change", "en", "después del cambio", "es"]);
		expect(after.start).toBeCloseTo(2.9, 3);
		expect(after.segment_id).not.toBe(before.segment_id);
	});

	it("stops for good when the relay refuses its token, rather than retrying it", async () => {
		const { server, relay } = await deepgram();
		const segments: BotSegment[] = [];
		const logs: string[] = [];
		const engine = new DeepgramEngine({ ...options(relay.url, segments, {}, logs), token: "a-stale-token" });
		feed(engine, burst(600, 300), 0);
		await until("logs.some((l) => l.includes('401'))", () => logs.some((l) => l.includes("401")), 5_000);
		feed(engine, burst(600, 300), 5_000);
		await engine.flush();
		expect(relay.refusedTokens).toEqual(["Bearer a-stale-token"]);
		expect(server.sessions).toHaveLength(0);
		expect(segments).toEqual([]);
	});
});

describe("the AssemblyAI adapter", () => {
	it("sends each growing Turn as a draft and confirms the turn's formatted end, with its words in call time", async () => {
		const { server, relay } = await assemblyai();
		server.script("aai-key", ["please ask siobhan"]);
		const segments: BotSegment[] = [];
		const engine = new AssemblyAIEngine(options(relay.url, segments, { vocabulary: ["Siobhan"] }));
		feed(engine, burst(900, 1_500), 2_000);
		await until("confirmed(segments).length === 1", () => confirmed(segments).length === 1, 5_000);
		const final = confirmed(segments)[0] as BotSegment;
		expect(final.text).toBe("Please ask Siobhan.");
		expect(final.source).toBe("assemblyai");
		expect(final.language).toBe("en");
		const drafts = segments.filter((s) => !s.completed);
		// Unformatted turns are lower case, as AssemblyAI sends them; the formatted end is cased and punctuated.
		expect(drafts.map((d) => d.text)).toContain("please ask siobhan");
		for (const d of drafts) expect(d.segment_id).toBe(final.segment_id);
		expect(final.start).toBeCloseTo(2, 3);
		expect(final.words?.map((w) => w.word)).toEqual(["Please", "ask", "Siobhan."]);
		expect(final.words?.[1]?.start).toBeCloseTo(2.3, 3);
		const session = server.sessions[0];
		expect(session?.authorization).toBe("aai-key");
		expect(session?.query).toMatchObject({
			sample_rate: ["16000"],
			encoding: ["pcm_s16le"],
			format_turns: ["true"],
			speech_model: ["universal-streaming-multilingual"],
			language_detection: ["true"],
			keyterms_prompt: [JSON.stringify(["Siobhan"])],
		});
		await engine.flush();
		expect(session?.messages).toEqual([{ type: "Terminate" }]);
		expect(session?.closed).toMatchObject({ code: 1000, by: "server" });
	});

	it("takes the English model for an English meeting, and confirms the open turn when flushed", async () => {
		const { server, relay } = await assemblyai();
		server.script("aai-key", ["still talking"]);
		const segments: BotSegment[] = [];
		const engine = new AssemblyAIEngine(options(relay.url, segments, { language: "en" }));
		feed(engine, burst(600, 0), 0);
		await until("segments.length > 0", () => segments.length > 0, 5_000);
		await engine.flush();
		expect(confirmed(segments)).toEqual([expect.objectContaining({ text: "Still talking.", completed: true, language: "en" })]);
		expect(server.sessions[0]?.query.speech_model).toEqual(["universal-streaming-english"]);
		expect(server.sessions[0]?.query.language_detection).toBeUndefined();
	});
});

describe("the bot's transcript source", () => {
	const spawn = (over: Partial<SpawnRequest>): SpawnRequest => ({
		meeting_id: 1,
		attempt: 1,
		platform: "google_meet",
		native_meeting_id: "abc-defg-hij",
		meeting_url: "https://meet.google.com/abc-defg-hij",
		bot_name: "Notetaker",
		task: "transcribe",
		recording_enabled: false,
		transcribe_enabled: true,
		voice_agent_enabled: true,
		automatic_leave: {},
		transcription: null,
		vocabulary: [],
		transcription_stream: null,
		channel: { url: "wss://gateway.test/internal/bot-channel/1", token: CHANNEL_TOKEN },
		...over,
	});
	const source = (request: SpawnRequest, logs: string[]) =>
		transcriptSource(request, {
			policy: { allowPrivate: true },
			prefix: "b",
			callStartedAt: 0,
			now: () => 0,
			captionSettleMs: 1_000,
			audio: new MeetingAudio({ recording: false, callOffsetMs: () => 0, maxRecordingBytes: 1_000 }),
			emit: () => {},
			log: (line) => logs.push(line),
		});

	it("reads a spawn of an earlier release as it meant: an endpoint is openai, none is captions", () => {
		expect(spawnEngine({ transcription: { url: "https://gateway.test/x", token: "t" } })).toBe("openai");
		expect(spawnEngine({ transcription: null })).toBe("captions");
		expect(spawnEngine({ engine: "deepgram", transcription: null })).toBe("deepgram");
	});

	it("starts the streaming engine the spawn names, with its relay", () => {
		const logs: string[] = [];
		const started = source(
			spawn({ engine: "assemblyai", transcription_stream: { url: "ws://127.0.0.1:1/s", token: CHANNEL_TOKEN } }),
			logs,
		);
		// The engine takes the audio; the captions still run beside it, merged into its transcript.
		expect(started.transcriber).toBeInstanceOf(CaptionsWithEngine);
		expect((started.transcriber as CaptionsWithEngine).engine).toBeInstanceOf(AssemblyAIEngine);
		expect(started.captions).not.toBeNull();
		expect(started.fallback).toBeNull();
		expect(logs).toEqual([]);
	});

	it("says a caption's segments came from the captions, drafts and confirmation alike", () => {
		const sent: BotSegment[] = [];
		const tracker = new CaptionTracker({ prefix: "m1", callStartedAt: 0, settleMs: 1_000, language: "en", emit: (s) => sent.push(s) });
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello" }], [], 1_000);
		tracker.update([{ key: "c1", speaker: "Ann", text: "Hello there" }], [], 1_200);
		tracker.flush();
		expect(sent.map((s) => [s.completed, s.source])).toEqual([
			[false, "captions"],
			[false, "captions"],
			[true, "captions"],
		]);
	});

	it("falls back to captions, saying why, when the engine cannot start here", () => {
		const logs: string[] = [];
		const started = source(spawn({ engine: "deepgram" }), logs);
		expect(started.transcriber).toBeNull();
		expect(started.captions).not.toBeNull();
		expect(started.fallback).toEqual({ engine: "deepgram", reason: "the spawn names no streaming relay" });
		expect(logs).toEqual([
			"transcription: the deepgram engine cannot start (the spawn names no streaming relay); the transcript comes from the platform's captions",
		]);
	});
});
