/**
 * Local stand-ins for outside providers, speaking their real wire protocol: an
 * OpenAI-compatible /v1/audio/transcriptions endpoint, a recording upload target, and the
 * Worker's recording parts receiver (docs/bot-channel.md#recording-parts: PUT part n of a file,
 * a re-PUT replacing it, POST the completion).
 */
import http from "node:http";
import { RECORDING_PART_SECONDS_HEADER, RecordingCompletion, type RecordingPartType } from "../../src/bot-channel/protocol.ts";

export interface HeardAudio {
	authorization: string | undefined;
	sampleRate: number;
	channels: number;
	seconds: number;
	rms: number;
	fields: Record<string, string>;
	/** `timestamp_granularities[]`, which a form may repeat. */
	granularities: string[];
	/** What the endpoint answered. */
	answer: Record<string, unknown>;
}

/** One PUT of a recording part, as received. */
export interface ReceivedPart {
	/** The recording's name in its parts URL: `/recordings/<name>/parts`. */
	recording: string;
	type: RecordingPartType;
	n: number;
	authorization: string | undefined;
	contentType: string | undefined;
	contentLength: number;
	mediaSeconds: number;
	body: Buffer;
}

export interface Providers {
	url: string;
	transcriptions: HeardAudio[];
	uploads: { path: string; authorization: string | undefined; contentType: string | undefined; body: Buffer }[];
	/** Every part PUT, in the order received (a re-PUT is a later entry with the same n). */
	parts: ReceivedPart[];
	completions: { recording: string; authorization: string | undefined; completion: RecordingCompletion }[];
	/** Part and completion requests answered 503 (see `failRecording`), by path. */
	refused: string[];
	/** The next `times` part or completion requests of a recording are answered 503 (Infinity: every one). */
	failRecording(name: string, times: number): void;
	/** The parts URL a spawn names for a recording called `name`. */
	partsUrl(name: string): string;
	/** A file as the Worker serves it: the last body of each part 1..`upTo` (default all), in order. */
	joined(name: string, type: RecordingPartType, upTo?: number): Buffer;
	close(): Promise<void>;
}

export function describeWav(wav: Buffer): Omit<HeardAudio, "authorization" | "fields" | "granularities" | "answer"> {
	const sampleRate = wav.readUInt32LE(24);
	const channels = wav.readUInt16LE(22);
	const pcm = wav.subarray(44);
	let sum = 0;
	for (let i = 0; i + 1 < pcm.length; i += 2) sum += (pcm.readInt16LE(i) / 0x8000) ** 2;
	const samples = pcm.length / 2;
	return { sampleRate, channels, seconds: samples / sampleRate / channels, rms: Math.sqrt(sum / Math.max(1, samples)) };
}

export async function startProviders(): Promise<Providers> {
	const transcriptions: HeardAudio[] = [];
	const uploads: Providers["uploads"] = [];
	const parts: ReceivedPart[] = [];
	const completions: Providers["completions"] = [];
	const refused: string[] = [];
	const failing = new Map<string, number>();
	const server = http.createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const body = Buffer.concat(chunks);
		if (req.method === "POST" && req.url === "/v1/audio/transcriptions") {
			// Parse the multipart body the way any HTTP server would.
			const form = await new Request("http://provider/", {
				method: "POST",
				headers: { "content-type": req.headers["content-type"] ?? "" },
				body,
			}).formData();
			const file = form.get("file");
			if (!(file instanceof Blob)) {
				res.writeHead(400).end(JSON.stringify({ error: { message: "file is required" } }));
				return;
			}
			const wav = Buffer.from(await file.arrayBuffer());
			const fields: Record<string, string> = {};
			for (const [k, v] of form.entries()) if (typeof v === "string") fields[k] = v;
			const granularities = form.getAll("timestamp_granularities[]").filter((v): v is string => typeof v === "string");
			const request = { authorization: req.headers.authorization, fields, granularities, ...describeWav(wav) };
			const answer = transcription(request);
			transcriptions.push({ ...request, answer });
			res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
			return;
		}
		const failingFor = /^\/recordings\/([\w-]+)\/parts\//.exec(req.url ?? "")?.[1] ?? "";
		if ((failing.get(failingFor) ?? 0) > 0) {
			failing.set(failingFor, (failing.get(failingFor) ?? 0) - 1);
			refused.push(req.url ?? "");
			res.writeHead(503).end(JSON.stringify({ detail: "the store is unavailable" }));
			return;
		}
		const part = /^\/recordings\/([\w-]+)\/parts\/(audio|video)\/(\d+)$/.exec(req.url ?? "");
		if (req.method === "PUT" && part) {
			parts.push({
				recording: part[1] ?? "",
				type: part[2] as RecordingPartType,
				n: Number(part[3]),
				authorization: req.headers.authorization,
				contentType: req.headers["content-type"],
				contentLength: Number(req.headers["content-length"]),
				mediaSeconds: Number(req.headers[RECORDING_PART_SECONDS_HEADER]),
				body,
			});
			res.writeHead(201).end();
			return;
		}
		const complete = /^\/recordings\/([\w-]+)\/parts\/complete$/.exec(req.url ?? "");
		if (req.method === "POST" && complete) {
			const parsed = RecordingCompletion.safeParse(JSON.parse(body.toString() || "null"));
			if (!parsed.success) {
				res.writeHead(400).end(JSON.stringify({ detail: parsed.error.message }));
				return;
			}
			const recording = complete[1] ?? "";
			// The Worker's rule: each file is parts 1..parts, none missing.
			const missing = parsed.data.files.some((f) =>
				Array.from({ length: f.parts }, (_, i) => i + 1).some(
					(n) => !parts.some((p) => p.recording === recording && p.type === f.type && p.n === n),
				),
			);
			if (missing) {
				res.writeHead(409).end(JSON.stringify({ detail: "a part is missing" }));
				return;
			}
			completions.push({ recording, authorization: req.headers.authorization, completion: parsed.data });
			res.writeHead(200).end("{}");
			return;
		}
		if (req.method === "PUT" && req.url?.startsWith("/recordings/")) {
			uploads.push({ path: req.url, authorization: req.headers.authorization, contentType: req.headers["content-type"], body });
			res.writeHead(201).end();
			return;
		}
		res.writeHead(404).end();
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		transcriptions,
		uploads,
		parts,
		completions,
		refused,
		failRecording: (name, times) => failing.set(name, times),
		partsUrl: (name) => `${url}/recordings/${name}/parts`,
		joined(name, type, upTo = Number.POSITIVE_INFINITY) {
			const latest = new Map<number, Buffer>();
			for (const p of parts) if (p.recording === name && p.type === type && p.n <= upTo) latest.set(p.n, p.body);
			const count = Math.max(0, ...latest.keys());
			return Buffer.concat(Array.from({ length: count }, (_, i) => latest.get(i + 1) ?? Buffer.alloc(0)));
		},
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}

/**
 * The answer OpenAI's endpoint gives for `response_format` `json` (text only) or
 * `verbose_json` (task, language as a name, duration, segments with log-probabilities, and
 * words when `timestamp_granularities[]` asks for them; segments only when it asks for those
 * or for nothing). Deterministic: the same audio always reads the same, so passes can agree.
 * Without a `language` the sandbox's speech (espeak-ng, English voice) is detected as English.
 */
function transcription(heard: Omit<HeardAudio, "answer">): Record<string, unknown> {
	const text = `speech lasting ${Math.round(heard.seconds * 10)} tenths`;
	const format = heard.fields.response_format ?? "json";
	if (format !== "verbose_json") return { text };
	const duration = heard.seconds;
	const spoken = text.split(" ");
	const words = spoken.map((word, i) => ({
		word,
		start: (duration * i) / spoken.length,
		end: (duration * (i + 1)) / spoken.length,
	}));
	const segments = [
		{
			id: 0,
			seek: 0,
			start: 0,
			end: duration,
			text: ` ${text}`,
			tokens: spoken.map((_, i) => 1000 + i),
			temperature: 0,
			// Louder audio reads as more certain, so confidence follows what was heard.
			avg_logprob: -Math.min(2, 0.01 / Math.max(heard.rms, 0.001)),
			compression_ratio: 1,
			no_speech_prob: heard.rms < 0.005 ? 0.9 : 0.01,
		},
	];
	const wanted = heard.granularities.length > 0 ? heard.granularities : ["segment"];
	return {
		task: heard.fields.task === "translate" ? "translate" : "transcribe",
		language: WHISPER_NAMES[heard.fields.language ?? "en"] ?? heard.fields.language,
		duration,
		text,
		...(wanted.includes("segment") ? { segments } : {}),
		...(wanted.includes("word") ? { words } : {}),
	};
}

/** How OpenAI's verbose_json names the languages the tests use. */
const WHISPER_NAMES: Record<string, string> = { en: "english", de: "german", fr: "french" };
