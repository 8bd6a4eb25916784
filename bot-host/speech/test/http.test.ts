import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeWav } from "../../bot/wav.ts";
import { noise, type RunningService, seconds, silence, speech, startSpeechService } from "./service.ts";

let service: RunningService;
beforeAll(async () => {
	service = await startSpeechService();
});
afterAll(() => service?.stop());

/** A 44.1 kHz stereo WAV from 16 kHz mono: the service must bring it back down. */
function stereo44k(pcm: Buffer): Buffer {
	const frames = Math.floor((pcm.length / 2) * (44_100 / 16_000));
	const data = Buffer.alloc(frames * 4);
	for (let i = 0; i < frames; i++) {
		const v = pcm.readInt16LE(Math.min(Math.floor((i * 16_000) / 44_100), pcm.length / 2 - 1) * 2);
		data.writeInt16LE(v, i * 4);
		data.writeInt16LE(v, i * 4 + 2);
	}
	const header = encodeWav(Buffer.alloc(0), 44_100).subarray(0, 44);
	header.writeUInt16LE(2, 22);
	header.writeUInt32LE(44_100 * 4, 28);
	header.writeUInt16LE(4, 32);
	header.writeUInt32LE(data.length, 40);
	header.writeUInt32LE(36 + data.length, 4);
	return Buffer.concat([header, data]);
}

async function transcribe(wav: Buffer, fields: Record<string, string | string[]> = {}): Promise<Response> {
	const form = new FormData();
	form.set("file", new Blob([new Uint8Array(wav)], { type: "audio/wav" }), "meeting.wav");
	form.set("model", "whisper-1");
	for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) form.append(name, v);
	return fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", body: form });
}

const said = speech("Good morning everyone. Let us review the roadmap and the hiring plan.");
const meeting = Buffer.concat([silence(1500), said, silence(1500)]);

describe("the speech service over HTTP (OpenAI's transcription shapes)", () => {
	it("loads the model and says so on /health and /v1/models", async () => {
		expect(await (await fetch(`${service.url}/health`)).json()).toEqual({
			status: "ok",
			model: "ggml-tiny-test",
			vad: "energy",
			threads: 1,
			waiting: 0,
		});
		const models = (await (await fetch(`${service.url}/v1/models`)).json()) as { object: string; data: { id: string; object: string }[] };
		expect(models.object).toBe("list");
		expect(models.data.map((m) => [m.id, m.object])).toEqual([["ggml-tiny-test", "model"]]);
	});

	it("answers json, text, verbose_json (segments and words), srt and vtt for speech", async () => {
		const json = (await (await transcribe(encodeWav(meeting, 16_000))).json()) as { text: string };
		expect(json.text.trim().length).toBeGreaterThan(0);

		const text = await transcribe(encodeWav(meeting, 16_000), { response_format: "text" });
		expect(text.headers.get("content-type")).toMatch(/^text\/plain/);
		expect((await text.text()).trim().length).toBeGreaterThan(0);

		const verbose = (await (
			await transcribe(stereo44k(meeting), {
				response_format: "verbose_json",
				"timestamp_granularities[]": ["segment", "word"],
				language: "en",
			})
		).json()) as {
			task: string;
			language: string;
			duration: number;
			text: string;
			segments: { id: number; start: number; end: number; text: string }[];
			words: { word: string; start: number; end: number }[];
		};
		expect(verbose.task).toBe("transcribe");
		expect(verbose.language).toBe("en");
		expect(verbose.duration).toBeCloseTo(seconds(meeting), 1);
		expect(verbose.segments.length).toBeGreaterThan(0);
		expect(verbose.words.length).toBeGreaterThan(0);
		// Inside the speech (the gate leaves the silences out), in order, each start before its end.
		for (const list of [verbose.segments, verbose.words]) {
			let previous = 0;
			for (const item of list) {
				expect(item.start).toBeGreaterThanOrEqual(1.2);
				expect(item.end).toBeLessThanOrEqual(1.5 + seconds(said) + 0.5);
				expect(item.end).toBeGreaterThanOrEqual(item.start);
				expect(item.start).toBeGreaterThanOrEqual(previous);
				previous = item.start;
			}
		}
		expect(verbose.segments.map((s) => s.text).join(" ")).toBe(verbose.text);

		const srt = await (await transcribe(encodeWav(meeting, 16_000), { response_format: "srt" })).text();
		expect(srt).toMatch(/^1\n00:00:0\d,\d{3} --> 00:00:0\d,\d{3}\n\S/);
		const vtt = await (await transcribe(encodeWav(meeting, 16_000), { response_format: "vtt" })).text();
		expect(vtt).toMatch(/^WEBVTT\n\n00:00:0\d\.\d{3} --> 00:00:0\d\.\d{3}\n\S/);
	});

	it("detects the language when none is given", async () => {
		const verbose = (await (await transcribe(encodeWav(meeting, 16_000), { response_format: "verbose_json" })).json()) as {
			language: string;
		};
		expect(verbose.language).toMatch(/^[a-z]{2,3}$/);
	});

	it("says English for an English-only model asked to detect, which cannot", async () => {
		const english = await startSpeechService({}, { multilingual: false });
		try {
			const form = new FormData();
			form.set("file", new Blob([new Uint8Array(encodeWav(meeting, 16_000))], { type: "audio/wav" }), "meeting.wav");
			form.set("response_format", "verbose_json");
			const res = await fetch(`${english.url}/v1/audio/transcriptions`, { method: "POST", body: form });
			expect(await res.json()).toMatchObject({ language: "en" });
		} finally {
			await english.stop();
		}
	});

	it("hears nothing in silence or low noise: empty text, no segments", async () => {
		for (const quiet of [silence(6000), noise(6000, 0.004), noise(6000, 0.02)]) {
			const verbose = (await (await transcribe(encodeWav(quiet, 16_000), { response_format: "verbose_json" })).json()) as {
				text: string;
				segments: unknown[];
			};
			expect(verbose).toMatchObject({ text: "", segments: [] });
			expect(await (await transcribe(encodeWav(quiet, 16_000), { response_format: "srt" })).text()).toBe("");
		}
	});

	it("refuses what it cannot use with OpenAI's error shape", async () => {
		const cases: [Promise<Response>, number, string | null, RegExp][] = [
			[transcribe(Buffer.from("ID3\u0004 not a wav")), 400, "file", /only WAV audio is accepted; convert it first/],
			[transcribe(encodeWav(meeting, 16_000), { response_format: "xml" }), 400, "response_format", /one of json, text/],
			[transcribe(encodeWav(meeting, 16_000), { "timestamp_granularities[]": "word" }), 400, "timestamp_granularities[]", /verbose_json/],
			[transcribe(encodeWav(meeting, 16_000), { language: "english!" }), 400, "language", /ISO-639-1/],
			[transcribe(encodeWav(meeting, 16_000), { language: "xx" }), 400, "language", /code whisper knows/],
			[transcribe(encodeWav(meeting, 16_000), { temperature: "3" }), 400, "temperature", /between 0 and 1/],
			[fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", body: new FormData() }), 400, "file", /file.*required/],
			[fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", body: "{}" }), 400, null, /multipart/],
			[fetch(`${service.url}/v1/chat/completions`), 404, null, /no route/],
		];
		for (const [pending, status, param, message] of cases) {
			const res = await pending;
			expect(res.status).toBe(status);
			const body = (await res.json()) as { error: { message: string; type: string; param: string | null } };
			expect(body.error.type).toBe("invalid_request_error");
			expect(body.error.param).toBe(param);
			expect(body.error.message).toMatch(message);
		}
	});
});
