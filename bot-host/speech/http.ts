/**
 * The service's HTTP face: OpenAI's `POST /v1/audio/transcriptions` (multipart, the shapes of
 * https://platform.openai.com/docs/api-reference/audio/createTranscription), `GET /v1/models`,
 * `GET /health`, and the upgrade to the live stream. Errors answer as OpenAI's do:
 * `{error: {message, type, param, code}}`.
 */
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { WebSocketServer } from "ws";
import { AudioRefused, decodeWav } from "./audio.ts";
import type { HeardSegment, HeardWord, SpeechModel } from "./engine.ts";
import { WHISPER_LANGUAGES } from "./languages.ts";
import { type StreamOptions, serveStream } from "./stream.ts";
import { STREAM_PATH } from "./stream-protocol.ts";
import { SAMPLE_RATE, speechSpans } from "./vad.ts";

/** OpenAI's upload limit. */
const MAX_UPLOAD_BYTES = 25 * 1024 * 1024;
const FORMATS = ["json", "text", "verbose_json", "srt", "vtt"] as const;
type Format = (typeof FORMATS)[number];

class BadRequest extends Error {
	readonly status: number;
	readonly param: string | null;
	constructor(message: string, param: string | null = null, status = 400) {
		super(message);
		this.status = status;
		this.param = param;
	}
}

function answer(res: ServerResponse, status: number, body: unknown, type = "application/json"): void {
	const text = typeof body === "string" ? body : JSON.stringify(body);
	res.writeHead(status, { "content-type": `${type}; charset=utf-8`, "content-length": Buffer.byteLength(text) });
	res.end(text);
}

function refuse(res: ServerResponse, err: BadRequest): void {
	answer(res, err.status, { error: { message: err.message, type: "invalid_request_error", param: err.param, code: null } });
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size > MAX_UPLOAD_BYTES) throw new BadRequest("the upload is larger than 25 MB", "file", 413);
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks);
}

interface Transcript {
	text: string;
	language: string | null;
	duration: number;
	segments: HeardSegment[];
	words: HeardWord[];
}

/** Each stretch of speech the gate finds, heard on its own; silence between them costs nothing. */
async function transcribeFile(
	model: SpeechModel,
	pcm: Buffer,
	o: { language: string | null; prompt?: string; words: boolean; temperature?: number },
): Promise<Transcript> {
	const out: Transcript = { text: "", language: o.language, duration: pcm.length / 2 / SAMPLE_RATE, segments: [], words: [] };
	for (const span of speechSpans(pcm)) {
		if (!(await model.hasSpeech(span.audio))) continue;
		const heard = await model.transcribe(span.audio, { ...o, language: o.language ?? null });
		if (!heard) continue;
		const offset = span.startSample / SAMPLE_RATE;
		out.language ??= heard.language;
		out.segments.push(...heard.segments.map((s) => ({ ...s, start: offset + s.start, end: offset + s.end })));
		out.words.push(...(heard.words ?? []).map((w) => ({ ...w, start: offset + w.start, end: offset + w.end })));
	}
	out.text = out.segments.map((s) => s.text).join(" ");
	return out;
}

function clock(seconds: number, separator: "," | "."): string {
	const ms = Math.round(seconds * 1000);
	const pad = (n: number, width = 2) => String(n).padStart(width, "0");
	return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

function render(t: Transcript, format: Format, granularities: Set<string>): { body: unknown; type?: string } {
	const round = (n: number) => Math.round(n * 100) / 100;
	switch (format) {
		case "json":
			return { body: { text: t.text } };
		case "text":
			return { body: `${t.text}\n`, type: "text/plain" };
		case "srt":
			return {
				body: t.segments.map((s, i) => `${i + 1}\n${clock(s.start, ",")} --> ${clock(s.end, ",")}\n${s.text}\n`).join("\n"),
				type: "application/x-subrip",
			};
		case "vtt":
			return {
				body: `WEBVTT\n\n${t.segments.map((s) => `${clock(s.start, ".")} --> ${clock(s.end, ".")}\n${s.text}\n`).join("\n")}`,
				type: "text/vtt",
			};
		case "verbose_json":
			return {
				body: {
					task: "transcribe",
					language: t.language,
					duration: round(t.duration),
					text: t.text,
					...(granularities.has("segment")
						? { segments: t.segments.map((s, id) => ({ id, seek: 0, start: round(s.start), end: round(s.end), text: s.text })) }
						: {}),
					...(granularities.has("word") ? { words: t.words.map((w) => ({ word: w.word, start: round(w.start), end: round(w.end) })) } : {}),
				},
			};
	}
}

function field(form: FormData, name: string): string | undefined {
	const value = form.get(name);
	return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

async function transcriptionRoute(req: IncomingMessage, res: ServerResponse, model: SpeechModel): Promise<void> {
	const type = req.headers["content-type"] ?? "";
	if (!type.startsWith("multipart/form-data")) throw new BadRequest("send the audio as multipart/form-data with a `file` field");
	const body = await readBody(req);
	let form: FormData;
	try {
		form = await new Request("http://speech.local/", {
			method: "POST",
			headers: { "content-type": type },
			body: new Uint8Array(body),
		}).formData();
	} catch {
		throw new BadRequest("the multipart body could not be read");
	}
	const file = form.get("file");
	if (!(file instanceof Blob)) throw new BadRequest("`file` is required: the audio to transcribe", "file");
	const format = (field(form, "response_format") ?? "json") as Format;
	if (!FORMATS.includes(format)) throw new BadRequest(`response_format must be one of ${FORMATS.join(", ")}`, "response_format");
	const granularities = new Set(form.getAll("timestamp_granularities[]").map(String));
	if (granularities.size === 0) granularities.add("segment");
	for (const g of granularities)
		if (g !== "segment" && g !== "word")
			throw new BadRequest("timestamp_granularities[] takes segment and word", "timestamp_granularities[]");
	if (granularities.has("word") && format !== "verbose_json")
		throw new BadRequest("word timestamps need response_format verbose_json", "timestamp_granularities[]");
	const language = field(form, "language")?.toLowerCase();
	if (language !== undefined && !WHISPER_LANGUAGES.has(language))
		throw new BadRequest("language must be an ISO-639-1 code whisper knows, such as en", "language");
	const temperatureText = field(form, "temperature");
	const temperature = temperatureText === undefined ? undefined : Number(temperatureText);
	if (temperature !== undefined && !(temperature >= 0 && temperature <= 1))
		throw new BadRequest("temperature must be between 0 and 1", "temperature");
	let pcm: Buffer;
	try {
		pcm = decodeWav(Buffer.from(await file.arrayBuffer()));
	} catch (err) {
		if (err instanceof AudioRefused) throw new BadRequest(err.message, "file");
		throw err;
	}
	const prompt = field(form, "prompt");
	const transcript = await transcribeFile(model, pcm, {
		language: language ?? null,
		words: granularities.has("word"),
		...(prompt ? { prompt } : {}),
		...(temperature !== undefined ? { temperature } : {}),
	});
	const { body: out, type: outType } = render(transcript, format, granularities);
	answer(res, 200, out, outType);
}

export function speechServer(model: SpeechModel, o: StreamOptions): http.Server {
	const { log } = o;
	const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
	const server = http.createServer((req, res) => {
		const path = new URL(req.url ?? "/", "http://speech.local").pathname;
		const route = async () => {
			if (req.method === "GET" && path === "/health")
				return answer(res, 200, { status: "ok", model: model.name, vad: model.vadKind, threads: model.threads, waiting: model.waiting });
			if (req.method === "GET" && path === "/v1/models")
				return answer(res, 200, { object: "list", data: [{ id: model.name, object: "model", created: 0, owned_by: "meetbot-edge" }] });
			if (req.method === "POST" && path === "/v1/audio/transcriptions") return transcriptionRoute(req, res, model);
			throw new BadRequest(`no route ${req.method} ${path}`, null, 404);
		};
		route().catch((err: unknown) => {
			if (res.headersSent) return res.destroy();
			if (err instanceof BadRequest) return refuse(res, err);
			log(`speech: ${req.method} ${path} failed: ${String(err)}`);
			answer(res, 500, { error: { message: "transcription failed", type: "server_error", param: null, code: null } });
		});
	});
	server.on("upgrade", (req, socket, head) => {
		if (new URL(req.url ?? "/", "http://speech.local").pathname !== STREAM_PATH) {
			socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n");
			return;
		}
		sockets.handleUpgrade(req, socket, head, (ws) => serveStream(ws, model, o));
	});
	return server;
}
