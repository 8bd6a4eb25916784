/**
 * A bot's streaming transcription through the Worker (docs/bot-channel.md#streaming-transcription):
 * the bot opens a WebSocket to the gateway with its channel token and speaks the provider's own
 * protocol; the Worker opens the provider's stream (here the local Deepgram and AssemblyAI servers,
 * test/receiver/) with the key in the provider's header and pipes frames both ways. What the bot
 * side receives is asserted: never the key.
 */
import { createExecutionContext, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SpawnRequest } from "../../../src/bot-channel/protocol";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import type { SessionRecord } from "../../receiver/streaming-stt";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { spawnRequestFor } from "../meetings/bot-sim";
import { postBotsWith, sendBot } from "../meetings/helpers";
import { call, userWithKey } from "../support";

type Provider = "deepgram" | "assemblyai";
const controlUrl = (provider: Provider) => (provider === "deepgram" ? env.DEEPGRAM_URL : env.ASSEMBLYAI_URL)?.replace(/^ws/, "http") ?? "";

async function script(provider: Provider, key: string, utterances: string[]) {
	const res = await fetch(`${controlUrl(provider)}/__script`, { method: "POST", body: JSON.stringify({ key, utterances }) });
	expect(res.status).toBe(200);
}

async function sessions(provider: Provider, key: string): Promise<SessionRecord[]> {
	const res = await fetch(`${controlUrl(provider)}/__sessions?key=${encodeURIComponent(key)}`);
	return ((await res.json()) as { sessions: SessionRecord[] }).sessions;
}

/** A tone for `voicedMs`, then silence, as 100 ms frames of 16 kHz PCM16. */
function frames(voicedMs: number, silenceMs: number): ArrayBuffer[] {
	const out: ArrayBuffer[] = [];
	for (let at = 0; at < voicedMs + silenceMs; at += 100) {
		const frame = new DataView(new ArrayBuffer(3200));
		if (at < voicedMs)
			for (let i = 0; i < 1600; i++) frame.setInt16(i * 2, Math.round(Math.sin((2 * Math.PI * 220 * i) / 16_000) * 8000), true);
		out.push(frame.buffer);
	}
	return out;
}

/** The bot's end of the relay: every message and the close it got. */
class StreamClient {
	readonly messages: Record<string, unknown>[] = [];
	readonly raw: string[] = [];
	closed: { code: number; reason: string } | undefined;

	constructor(readonly socket: WebSocket) {
		socket.accept();
		socket.addEventListener("message", (e) => {
			this.raw.push(String(e.data));
			this.messages.push(JSON.parse(String(e.data)));
		});
		socket.addEventListener("close", (e) => {
			this.closed = { code: e.code, reason: e.reason };
		});
	}

	waitFor(what: string, match: (m: Record<string, unknown>) => boolean) {
		return eventually(what, () => this.messages.find(match));
	}
}

function streamRequest(spawn: SpawnRequest, query: string, token = spawn.transcription_stream?.token ?? "") {
	const path = new URL(
		spawn.transcription_stream?.url ?? `wss://gateway.test/internal/bot-channel/${spawn.meeting_id}/transcription/stream`,
	).pathname;
	return new Request(`https://gateway.test${path}?${query}`, { headers: { Upgrade: "websocket", Authorization: `Bearer ${token}` } });
}

/** A stream's upgrade straight to the Worker with deployment settings of the test's choosing; the relay's pump is left running. */
async function openThroughWorker(request: Request, deployment: Partial<Env>): Promise<Response> {
	return worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, { ...env, ...deployment } as Env, createExecutionContext());
}

async function open(spawn: SpawnRequest, query: string): Promise<StreamClient> {
	const res = await SELF.fetch(streamRequest(spawn, query));
	if (!res.webSocket) throw new Error(`no WebSocket: ${res.status} ${await res.text()}`);
	return new StreamClient(res.webSocket);
}

/** A user whose account streams with `provider` and the key (known to the local provider unless `unknownKey`), and their bot's spawn. */
async function streamingBot(provider: Provider, o: { unknownKey?: boolean; utterances?: string[] } = {}) {
	const key = `${provider}-key-${crypto.randomUUID()}`;
	if (!o.unknownKey) await script(provider, key, o.utterances ?? []);
	const { headers } = await userWithKey();
	expect((await call("PUT", "/user/transcription", { headers, json: { engine: provider, token: key } })).status).toBe(200);
	const meeting = await sendBot(headers, meetCode());
	return { key, headers, meeting, spawn: await spawnRequestFor(meeting.id) };
}

describe("the streaming relay to Deepgram", () => {
	it("adds the account's key in Deepgram's header, forces the audio format, and pipes results back without the key", async () => {
		const { key, spawn, meeting } = await streamingBot("deepgram", { utterances: ["hello from the relay"] });
		const bot = await open(
			spawn,
			"model=nova-3&interim_results=true&utterance_end_ms=1000&endpointing=300&sample_rate=8000&token=evil&keyterm=Siobhan",
		);
		for (const frame of frames(1_200, 1_500)) bot.socket.send(frame);
		const final = await bot.waitFor("speech_final", (m) => m.type === "Results" && m.speech_final === true);
		expect(JSON.stringify(final)).toContain("relay");
		await bot.waitFor("UtteranceEnd", (m) => m.type === "UtteranceEnd");
		bot.socket.send(JSON.stringify({ type: "CloseStream" }));
		await bot.waitFor("Metadata", (m) => m.type === "Metadata");
		await eventually("closed", () => bot.closed);
		expect(bot.closed?.code).toBe(1000);
		const interim = bot.messages.filter((m) => m.type === "Results" && m.is_final === false);
		expect(interim.length).toBeGreaterThan(0);

		const [session, ...more] = await sessions("deepgram", key);
		expect(more).toEqual([]);
		expect(session?.authorization).toBe(`Token ${key}`);
		// The bot's choices pass; the audio format is the Worker's, and no token of the bot's goes on.
		expect(session?.query).toMatchObject({
			model: ["nova-3"],
			keyterm: ["Siobhan"],
			sample_rate: ["16000"],
			encoding: ["linear16"],
			channels: ["1"],
		});
		expect(session?.query.token).toBeUndefined();
		expect(session?.audioBytes).toBe(27 * 3200);
		expect(session?.messages).toEqual([{ type: "CloseStream" }]);
		expect(bot.raw.join("\n")).not.toContain(key);
		// Metered as the HTTP relay is: a block of seconds reserved before the audio went on.
		const usage = await env.DB.prepare("SELECT seconds FROM transcription_usage_meetings WHERE meeting_id = ?")
			.bind(meeting.id)
			.first<number>("seconds");
		expect(usage).toBe(10);
	});

	it("redacts the key when the provider says it back", async () => {
		const key = `deepgram-key-${crypto.randomUUID()}`;
		await script("deepgram", key, [`my key is ${key}`]);
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", { headers, json: { engine: "deepgram", token: key } });
		const spawn = await spawnRequestFor((await sendBot(headers, meetCode())).id);
		const bot = await open(spawn, "model=nova-3&interim_results=true&endpointing=300");
		for (const frame of frames(1_500, 600)) bot.socket.send(frame);
		const final = await bot.waitFor("speech_final", (m) => m.type === "Results" && m.speech_final === true);
		expect(JSON.stringify(final)).toContain("[redacted]");
		expect(bot.raw.join("\n")).not.toContain(key);
		// The bot leaving closes the provider's stream too.
		bot.socket.close(1000, "done");
		const [session] = await eventually("the provider's stream closed", async () => {
			const found = await sessions("deepgram", key);
			return found[0]?.closed ? found : undefined;
		});
		expect(session?.closed).toEqual({ code: 1000, reason: "done", by: "client" });
	});

	it("takes the deployment's key for an account that brings none, and never sends it to the bot", async () => {
		const key = `deepgram-deployment-key-${crypto.randomUUID()}`;
		await script("deepgram", key, ["the deployment pays"]);
		const deployment = { TRANSCRIPTION_ENGINE: "deepgram", DEEPGRAM_API_KEY: key };
		const { headers } = await userWithKey();
		const started = await postBotsWith(deployment, headers);
		expect(started.status).toBe(201);
		const spawn = await spawnRequestFor(((await started.json()) as { id: number }).id);
		expect(JSON.stringify(spawn)).not.toContain(key);
		const res = await openThroughWorker(streamRequest(spawn, "model=nova-3&interim_results=true&endpointing=300"), deployment);
		if (!res.webSocket) throw new Error(`no WebSocket: ${res.status}`);
		const bot = new StreamClient(res.webSocket);
		for (const frame of frames(900, 600)) bot.socket.send(frame);
		await bot.waitFor("speech_final", (m) => m.type === "Results" && m.speech_final === true);
		expect(bot.raw.join("\n")).toContain('"transcript":"the deployment pays"');
		expect((await sessions("deepgram", key))[0]?.authorization).toBe(`Token ${key}`);
		expect(bot.raw.join("\n")).not.toContain(key);
		bot.socket.close(1000, "done");
	});

	it("answers 502 without the provider's words when Deepgram refuses the key, and 401 for a wrong channel token", async () => {
		const { spawn } = await streamingBot("deepgram", { unknownKey: true });
		const refused = await SELF.fetch(streamRequest(spawn, "model=nova-3"));
		expect(refused.status).toBe(502);
		expect(await refused.json()).toEqual({ detail: "Deepgram refused the API key" });
		const wrong = await SELF.fetch(streamRequest(spawn, "model=nova-3", "garbage"));
		expect(wrong.status).toBe(401);
		expect(await wrong.json()).toEqual({ detail: "Invalid bot channel token" });
	});

	it("refuses a meeting that does not stream, and one that has ended", async () => {
		const { headers } = await userWithKey();
		const captions = await sendBot(headers, meetCode());
		const spawn = await spawnRequestFor(captions.id);
		const notStreaming = await SELF.fetch(streamRequest({ ...spawn, transcription_stream: null }, "", spawn.channel.token));
		expect(notStreaming.status).toBe(409);
		expect(await notStreaming.json()).toEqual({ detail: "The meeting does not transcribe with a streaming provider" });

		const streaming = await streamingBot("deepgram");
		expect((await call("DELETE", `/bots/google_meet/${streaming.meeting.native_meeting_id}`, { headers: streaming.headers })).status).toBe(
			204,
		);
		const ended = await SELF.fetch(streamRequest(streaming.spawn, "model=nova-3"));
		expect(ended.status).toBe(409);
		expect(await ended.json()).toEqual({ detail: "The meeting is not live" });
	});

	it("closes the stream (1008) with the reason once the account's daily allowance is spent, before the audio goes on", async () => {
		const { key, spawn } = await streamingBot("deepgram");
		const res = await openThroughWorker(streamRequest(spawn, "model=nova-3"), { TRANSCRIPTION_RELAY_DAILY_SECONDS: "5" });
		if (!res.webSocket) throw new Error(`no WebSocket: ${res.status}`);
		const bot = new StreamClient(res.webSocket);
		bot.socket.send(frames(100, 0)[0] as ArrayBuffer);
		await eventually("closed", () => bot.closed);
		expect(bot.closed).toEqual({
			code: 1008,
			reason: "The account has sent its 5 s of audio to transcribe for today (UTC); it can send more tomorrow",
		});
		expect((await sessions("deepgram", key))[0]?.audioBytes).toBe(0);
	});
});

describe("the streaming relay to AssemblyAI", () => {
	it("sends the key as AssemblyAI's Authorization header and pipes Begin, Turns and Termination", async () => {
		const { key, spawn } = await streamingBot("assemblyai", { utterances: ["a formatted turn"] });
		const bot = await open(spawn, "format_turns=true&speech_model=universal-streaming-english");
		await bot.waitFor("Begin", (m) => m.type === "Begin");
		for (const frame of frames(900, 600)) bot.socket.send(frame);
		const formatted = await bot.waitFor("formatted end of turn", (m) => m.type === "Turn" && m.turn_is_formatted === true);
		expect(formatted.transcript).toBe("A formatted turn.");
		bot.socket.send(JSON.stringify({ type: "Terminate" }));
		await bot.waitFor("Termination", (m) => m.type === "Termination");
		await eventually("closed", () => bot.closed);
		expect(bot.closed?.code).toBe(1000);
		const [session] = await sessions("assemblyai", key);
		expect(session?.authorization).toBe(key);
		expect(session?.query).toMatchObject({ sample_rate: ["16000"], encoding: ["pcm_s16le"], format_turns: ["true"] });
		expect(bot.raw.join("\n")).not.toContain(key);
	});

	it("passes AssemblyAI's own refusal of a key on to the bot: its Error message and close, without the key", async () => {
		const { key, spawn } = await streamingBot("assemblyai", { unknownKey: true });
		const bot = await open(spawn, "format_turns=true");
		await eventually("closed", () => bot.closed);
		expect(bot.messages).toEqual([{ type: "Error", error_code: 1008, error: "Unauthorized connection: Invalid API key" }]);
		expect(bot.closed?.code).toBe(1008);
		expect(bot.raw.join("\n")).not.toContain(key);
	});
});
