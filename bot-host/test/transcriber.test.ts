/**
 * The audio transcript path without a browser: synthetic speech bursts into the transcriber,
 * a scripted OpenAI-compatible endpoint answering each pass.
 */
import http from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import type { BotSegment } from "../../src/bot-channel/protocol.ts";
import type { EgressPolicy } from "../bot/egress.ts";
import { SAMPLE_RATE, Transcriber } from "../bot/transcriber.ts";

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

/** An endpoint that answers passes from a script, in order, then repeats the last answer. */
async function scriptedEndpoint(answers: string[], redirectTo?: string): Promise<{ url: string; port: number; calls: () => number }> {
	let calls = 0;
	server = http.createServer((req, res) => {
		req.resume();
		req.on("end", () => {
			const text = answers[Math.min(calls, answers.length - 1)];
			calls++;
			if (redirectTo) res.writeHead(307, { location: redirectTo }).end();
			else res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ text }));
		});
	});
	await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", () => resolve()));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return { url: `http://127.0.0.1:${port}`, port, calls: () => calls };
}

function transcriber(url: string, segments: BotSegment[], egress: EgressPolicy = { allowPrivate: true }, logs: string[] = []): Transcriber {
	return new Transcriber({
		url,
		token: "transcription-token",
		egress,
		language: null,
		task: "transcribe",
		prefix: "t",
		callOffsetMs: () => 0,
		speakerBetween: () => ({ speaker: "Ann", source: "active_speaker" }),
		emit: (s) => segments.push(s),
		log: (line) => logs.push(line),
	});
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
});
