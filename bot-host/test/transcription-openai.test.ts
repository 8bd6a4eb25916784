/**
 * The audio transcript path without a browser: synthetic speech bursts into the transcriber,
 * a scripted OpenAI-compatible endpoint answering each pass.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import { until } from "../../test/shared/wait.ts";
import type { EgressPolicy } from "../bot/egress.ts";
import { SAMPLE_RATE } from "../bot/transcription/engine.ts";
import { OpenAIEngine, transcriptionEgress } from "../bot/transcription/openai.ts";

/** A tone burst (voiced) followed by silence, as 16 kHz PCM16. */
function burst(voicedMs: number, silenceMs: number): Buffer {
	const voiced = Math.round((SAMPLE_RATE * voicedMs) / 1000);
	const total = voiced + Math.round((SAMPLE_RATE * silenceMs) / 1000);
	const pcm = Buffer.alloc(total * 2);
	for (let i = 0; i < voiced; i++) pcm.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 220 * i) / SAMPLE_RATE) * 8000), i * 2);
	return pcm;
}

let server: http.Server | null = null;
afterEach(async () => {
	await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
	server = null;
});

/**
 * An endpoint that answers passes from a script, in order, then repeats the last answer: a
 * string is a plain `json` answer ({text}), an object is the whole body (e.g. verbose_json).
 * Each request's form fields are kept (repeated fields joined by commas).
 */
async function scriptedEndpoint(
	answers: (string | Record<string, unknown>)[],
	redirectTo?: string,
): Promise<{ url: string; port: number; calls: () => number; forms: Record<string, string>[] }> {
	let calls = 0;
	const forms: Record<string, string>[] = [];
	server = http.createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const form = await new Request("http://endpoint/", {
			method: "POST",
			headers: { "content-type": req.headers["content-type"] ?? "" },
			body: Buffer.concat(chunks),
		}).formData();
		const fields: Record<string, string> = {};
		for (const key of new Set(form.keys())) {
			const values = form.getAll(key).filter((v): v is string => typeof v === "string");
			if (values.length > 0) fields[key] = values.join(",");
		}
		forms.push(fields);
		const answer = answers[Math.min(calls, answers.length - 1)];
		calls++;
		if (redirectTo) res.writeHead(307, { location: redirectTo }).end();
		else
			res
				.writeHead(200, { "content-type": "application/json" })
				.end(JSON.stringify(typeof answer === "string" ? { text: answer } : answer));
	});
	await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", () => resolve()));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return { url: `http://127.0.0.1:${port}`, port, calls: () => calls, forms };
}

type Speaker = ReturnType<ConstructorParameters<typeof OpenAIEngine>[0]["speakerBetween"]>;
const ANN: Speaker = { speaker: "Ann", source: "active_speaker" };

function transcriber(
	url: string,
	segments: BotSegment[],
	egress: EgressPolicy = { allowPrivate: true },
	logs: string[] = [],
	speaker: () => Speaker = () => ANN,
	vocabulary: string[] = [],
): OpenAIEngine {
	return new OpenAIEngine({
		url,
		vocabulary,
		token: "transcription-token",
		egress,
		language: null,
		task: "transcribe",
		prefix: "t",
		callOffsetMs: () => 0,
		speakerBetween: speaker,
		emit: (s) => segments.push(s),
		log: (line) => logs.push(line),
	});
}

/** Feeds PCM in 100 ms chunks, the way the page delivers it; returns the call offset reached. */
function feed(t: OpenAIEngine, pcm: Buffer, fromMs: number): number {
	const chunk = (SAMPLE_RATE / 10) * 2;
	let at = fromMs;
	for (let i = 0; i < pcm.length; i += chunk) {
		at += 100;
		t.push(pcm.subarray(i, i + chunk), at);
	}
	return at;
}

describe("transcriber", () => {
	it("re-runs the final pass until two consecutive passes agree, then confirms that text", async () => {
		const endpoint = await scriptedEndpoint(["hello", "hello world", "hello world"]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		t.push(burst(1_000, 800), 1_800);
		await t.flush();
		expect(endpoint.calls()).toBe(3);
		expect(segments.filter((s) => s.completed)).toEqual([
			expect.objectContaining({ segment_id: "t-a1", text: "hello world", speaker: "Ann", speaker_source: "active_speaker" }),
		]);
	});

	it("says its segments came from the openai engine, and hints the meeting's vocabulary as Whisper's prompt", async () => {
		const endpoint = await scriptedEndpoint(["Ask Siobhan about Kubernetes"]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments, undefined, [], () => ANN, ["Siobhan", "Kubernetes"]);
		t.push(burst(1_000, 800), 1_800);
		await t.flush();
		expect(endpoint.forms.length).toBeGreaterThan(0);
		for (const form of endpoint.forms) expect(form.prompt).toBe("Glossary: Siobhan, Kubernetes.");
		expect(segments.length).toBeGreaterThan(0);
		for (const s of segments) expect(s.source).toBe("openai");
	});

	it("sends no prompt without a vocabulary", async () => {
		const plain = await scriptedEndpoint(["hello world"]);
		const without = transcriber(plain.url, []);
		without.push(burst(1_000, 800), 1_800);
		await without.flush();
		expect(plain.forms.length).toBeGreaterThan(0);
		for (const form of plain.forms) expect(form.prompt).toBeUndefined();
	});

	it("drops what speech models invent from noise", async () => {
		const endpoint = await scriptedEndpoint(["Thank you."]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		t.push(burst(600, 800), 1_400);
		await t.flush();
		expect(endpoint.calls()).toBeGreaterThan(0);
		expect(segments).toEqual([]);
	});

	it("sends nothing for silence", async () => {
		const endpoint = await scriptedEndpoint(["never"]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		t.push(burst(0, 3_000), 3_000);
		await t.flush();
		expect(endpoint.calls()).toBe(0);
		expect(segments).toEqual([]);
	});

	it("refuses an endpoint on a private address, by literal or by name, when private targets are refused", async () => {
		const endpoint = await scriptedEndpoint(["secret"]);
		const logs: string[] = [];
		const byName = `http://whisper.internal.test:${endpoint.port}`;
		const policy = { allowPrivate: false, resolve: async () => ["127.0.0.1"] };
		const segments: BotSegment[] = [];
		for (const url of [endpoint.url, byName]) {
			const t = transcriber(url, segments, policy, logs);
			t.push(burst(1_000, 800), 1_800);
			await t.flush();
		}
		expect(endpoint.calls()).toBe(0);
		expect(segments).toEqual([]);
		expect(logs).toContain(
			"transcription failed: EgressRefused: the transcription endpoint is refused: loopback target 127.0.0.1 is not allowed",
		);
		expect(logs).toContain("transcription failed: EgressRefused: the transcription endpoint resolves to a loopback address");
	});

	it("reaches the Worker's relay on the gateway (private here) as the channel does, while any other private endpoint stays refused", async () => {
		const endpoint = await scriptedEndpoint(["through the gateway", "through the gateway"]);
		const refusing = { allowPrivate: false };
		const relay = {
			channel: { url: `ws://127.0.0.1:${endpoint.port}/internal/bot-channel/7`, token: "channel-token" },
			transcription: { url: `http://127.0.0.1:${endpoint.port}/internal/bot-channel/7/audio/transcriptions`, token: "channel-token" },
		};
		const segments: BotSegment[] = [];
		const t = transcriber(relay.transcription.url, segments, transcriptionEgress(relay, refusing));
		t.push(burst(1_000, 800), 1_800);
		await t.flush();
		expect(segments.filter((s) => s.completed).map((s) => s.text)).toEqual(["through the gateway"]);
		// The same endpoint named by a spawn whose gateway is elsewhere is a user's URL: judged, refused.
		const elsewhere = { ...relay, channel: { url: "wss://gateway.example.com/internal/bot-channel/7", token: "channel-token" } };
		expect(transcriptionEgress(elsewhere, refusing)).toBe(refusing);
		expect(transcriptionEgress({ ...relay, transcription: null }, refusing)).toBe(refusing);
	});

	it("never follows a redirect with the token: the pass fails instead", async () => {
		const elsewhere = http.createServer((req, res) => {
			elsewhereCalls.push(req.headers.authorization);
			res.end("{}");
		});
		const elsewhereCalls: (string | undefined)[] = [];
		await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", () => resolve()));
		const port = (elsewhere.address() as { port: number }).port;
		try {
			const endpoint = await scriptedEndpoint(["x"], `http://127.0.0.1:${port}/v1/audio/transcriptions`);
			const logs: string[] = [];
			const t = transcriber(endpoint.url, [], { allowPrivate: true }, logs);
			t.push(burst(1_000, 800), 1_800);
			await t.flush();
			expect(endpoint.calls()).toBeGreaterThan(0);
			expect(elsewhereCalls).toEqual([]);
			expect(logs).toContain("transcription failed: EgressRefused: the transcription endpoint redirected, which is not followed");
		} finally {
			await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
		}
	});

	it("asks for verbose_json and keeps the detected language, a confidence and the words of the confirmation", async () => {
		const verbose = (text: string, words: boolean) => ({
			task: "transcribe",
			language: "german",
			duration: 1.4,
			text,
			segments: [
				{ id: 0, start: 0, end: 1, text, avg_logprob: -0.1, no_speech_prob: 0.01 },
				{ id: 1, start: 1, end: 1.4, text: "", avg_logprob: -0.6, no_speech_prob: 0.02 },
			],
			...(words
				? {
						words: [
							{ word: "Guten", start: 0.1, end: 0.5 },
							{ word: " Morgen", start: 0.6, end: 1.2, probability: 0.9 },
						],
					}
				: {}),
		});
		const endpoint = await scriptedEndpoint([verbose("Guten Morgen", true)]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		// The utterance starts 5 s into the call: word times are call times, like the segment's.
		feed(t, burst(0, 5_000), 0);
		t.push(burst(1_000, 800), 6_800);
		await t.flush();
		const done = segments.filter((s) => s.completed);
		expect(done).toHaveLength(1);
		const segment = done[0] as BotSegment;
		expect(segment).toMatchObject({ text: "Guten Morgen", language: "de" });
		// exp() of the length-weighted mean avg_logprob: (-0.1 * 1 + -0.6 * 0.4) / 1.4.
		expect(segment.confidence).toBeCloseTo(Math.exp((-0.1 - 0.24) / 1.4), 6);
		const start = segment.start;
		expect(segment.words).toEqual([
			{ word: "Guten", start: expect.closeTo(start + 0.1, 6), end: expect.closeTo(start + 0.5, 6) },
			{ word: "Morgen", start: expect.closeTo(start + 0.6, 6), end: expect.closeTo(start + 1.2, 6), probability: 0.9 },
		]);
		expect(start).toBeGreaterThan(4.5);
		for (const form of endpoint.forms) expect(form).toMatchObject({ response_format: "verbose_json", model: "whisper-1" });
		// Confirmation passes ask for words as well as segments (words alone would drop the log-probabilities).
		expect(endpoint.forms.at(-1)?.["timestamp_granularities[]"]).toBe("segment,word");
	});

	it("keeps a language code as the endpoint gives it, and the forced one when the endpoint names none", async () => {
		const endpoint = await scriptedEndpoint([{ text: "bonjour", language: "fr", segments: [] }]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		t.push(burst(1_000, 800), 1_800);
		await t.flush();
		expect(segments.at(-1)).toMatchObject({ text: "bonjour", language: "fr" });
		expect(segments.at(-1)?.confidence).toBeUndefined();

		const plain = await scriptedEndpoint(["hallo"]);
		const forced: BotSegment[] = [];
		const t2 = transcriber(plain.url, forced);
		t2.language = "de";
		t2.push(burst(1_000, 800), 1_800);
		await t2.flush();
		expect(forced.at(-1)).toMatchObject({ text: "hallo", language: "de" });
		expect(forced.at(-1)?.words).toBeUndefined();
		expect(plain.forms[0]?.language).toBe("de");
	});

	it("drops a window Whisper itself marks as no speech", async () => {
		const endpoint = await scriptedEndpoint([
			{ text: "so", language: "english", segments: [{ start: 0, end: 1, avg_logprob: -1.4, no_speech_prob: 0.93 }] },
		]);
		const segments: BotSegment[] = [];
		const t = transcriber(endpoint.url, segments);
		t.push(burst(1_000, 800), 1_800);
		await t.flush();
		expect(endpoint.calls()).toBeGreaterThan(0);
		expect(segments).toEqual([]);
	});

	it("labels a draft nobody was seen speaking provisionally, and rebinds it when the speaker shows", async () => {
		const endpoint = await scriptedEndpoint(["we ship on friday"]);
		const segments: BotSegment[] = [];
		let shown = false;
		const t = transcriber(endpoint.url, segments, undefined, undefined, () => (shown ? ANN : { speaker: "", source: "none" }));
		// Two seconds of speech make a draft before the utterance ends.
		const at = feed(t, burst(2_100, 0), 0);
		await until("a segment", () => segments.length > 0);
		expect(segments[0]).toMatchObject({ segment_id: "t-a1", completed: false, speaker: "Unknown speaker", speaker_source: "none" });
		shown = true;
		feed(t, burst(300, 800), at);
		await t.flush();
		expect(segments.at(-1)).toMatchObject({ segment_id: "t-a1", completed: true, speaker: "Ann", speaker_source: "active_speaker" });
	});
});
