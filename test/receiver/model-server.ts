/**
 * A local OpenAI-compatible model server for tests, speaking the real wire format of
 * `POST …/chat/completions`: with `stream: true` an SSE body of `chat.completion.chunk`
 * objects (content deltas, tool-call deltas whose arguments come in fragments, a usage chunk
 * when `stream_options.include_usage`, then `data: [DONE]`); with `stream: false` one
 * `chat.completion` object.
 *
 * Scripting is keyed by a marker, a text the test puts in its prompt, so test files running in
 * parallel never consume each other's steps:
 *   POST /__script  {marker, steps:[…]}   queue steps; each request whose LAST user message
 *                                         contains the marker consumes the next one
 *   GET  /__requests?marker=m              → {requests:[{method, path, headers, body, received_at}]}
 *   POST /__reset   {marker?}               forget a marker's steps and requests (all when none)
 * Unscripted requests get the short default reply "ok".
 *
 * Plain Node with no imports beyond node:, so the e2e global setup can load it as the worker
 * tier's global setup does (type stripping, no bundler).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type ModelStepScript, PROVIDER_SECRET_TEXT, type RecordedModelRequest } from "./model-script.ts";
import { json, listenLocally, readBody } from "./node-http.ts";

export type { ModelStepScript, RecordedModelRequest, ScriptedToolCall } from "./model-script.ts";

export interface ModelServer {
	url: string;
	close(): Promise<void>;
}

interface Recorded extends RecordedModelRequest {
	lastUserText: string;
}

export interface ModelServerOptions {
	port?: number;
	host?: string;
	/** Called the moment the first piece of text of an answer is written (the bench times the gateway against it). */
	onFirstText?: (lastUserText: string) => void;
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
	const scripts = new Map<string, ModelStepScript[]>();
	const recorded: Recorded[] = [];

	const server = createServer(async (req, res) => {
		try {
			const url = new URL(req.url ?? "/", "http://model");
			const raw = (await readBody(req)).toString("utf8");
			if (url.pathname.startsWith("/__")) return control(url, raw, res);
			if (req.method === "GET" && url.pathname.endsWith("/models")) {
				return json(res, 200, { object: "list", data: [{ id: "test-model", object: "model", owned_by: "tests" }] });
			}
			if (req.method !== "POST" || !url.pathname.endsWith("/chat/completions")) {
				return json(res, 404, openAiError("Unknown request URL", "invalid_request_error", "unknown_url"));
			}
			let body: unknown = raw;
			try {
				body = JSON.parse(raw);
			} catch {
				// Kept as text: the client sent something that is not JSON, and the test may assert it.
			}
			const lastUserText = lastUserMessage(body);
			recorded.push({ method: req.method, path: url.pathname, headers: { ...req.headers }, body, received_at: Date.now(), lastUserText });
			if (typeof body !== "object" || body === null)
				return json(res, 400, openAiError("We could not parse the JSON body", "invalid_request_error", null));
			const step = nextStep(lastUserText) ?? { text: ["ok"] };
			await answer(req, res, body as CompletionRequest, step, () => options.onFirstText?.(lastUserText));
		} catch (err) {
			if (!res.headersSent) json(res, 500, openAiError(`model server: ${String(err)}`, "server_error", null));
			else res.destroy();
		}
	});

	function nextStep(lastUserText: string): ModelStepScript | undefined {
		for (const [marker, steps] of scripts) {
			if (steps.length > 0 && lastUserText.includes(marker)) return steps.shift();
		}
		return undefined;
	}

	function control(url: URL, raw: string, res: ServerResponse) {
		const action = url.pathname.slice("/__".length);
		if (action === "script") {
			const { marker, steps } = JSON.parse(raw) as { marker?: string; steps?: ModelStepScript[] };
			if (!marker || !Array.isArray(steps)) return json(res, 400, { error: "marker and steps are required" });
			const queue = scripts.get(marker) ?? [];
			queue.push(...steps);
			scripts.set(marker, queue);
			return json(res, 200, { queued: queue.length });
		}
		if (action === "requests") {
			const marker = url.searchParams.get("marker") ?? "";
			const requests = recorded.filter((r) => r.lastUserText.includes(marker)).map(({ lastUserText: _l, ...r }) => r);
			return json(res, 200, { requests });
		}
		if (action === "reset") {
			const marker = raw ? (JSON.parse(raw) as { marker?: string }).marker : undefined;
			if (marker === undefined) {
				scripts.clear();
				recorded.length = 0;
			} else {
				scripts.delete(marker);
				for (let i = recorded.length - 1; i >= 0; i--) if (recorded[i]?.lastUserText.includes(marker)) recorded.splice(i, 1);
			}
			return json(res, 200, {});
		}
		return json(res, 404, { error: "unknown control action" });
	}

	return listenLocally(server, options.port, options.host);
}

interface CompletionRequest {
	model?: string;
	stream?: boolean;
	stream_options?: { include_usage?: boolean };
	messages?: unknown;
}

type Delta = { role?: "assistant"; content?: string; tool_calls?: ToolCallDelta[] };
type ToolCallDelta = { index: number; id?: string; type?: "function"; function: { name?: string; arguments: string } };

async function answer(
	req: IncomingMessage,
	res: ServerResponse,
	request: CompletionRequest,
	step: ModelStepScript,
	onFirstText: () => void,
) {
	if (step.redirect) return void res.writeHead(307, { location: step.redirect }).end();
	if (step.status) {
		const body = step.body ?? openAiError(`${PROVIDER_SECRET_TEXT} (status ${step.status})`, errorType(step.status), null);
		res.writeHead(step.status, { "content-type": "application/json" });
		return void res.end(typeof body === "string" ? body : JSON.stringify(body));
	}
	const id = `chatcmpl-${crypto.randomUUID()}`;
	const created = Math.floor(Date.now() / 1000);
	const model = request.model ?? "unknown";
	const calls = (step.tool_calls ?? []).map((c) => ({
		id: c.id ?? `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`,
		name: c.name,
		arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments),
		fragments: Math.max(1, c.fragments ?? 3),
	}));
	const text = step.text ?? [];
	const finish = step.finish_reason ?? (calls.length > 0 ? "tool_calls" : "stop");
	const usage = {
		prompt_tokens: JSON.stringify(request.messages ?? []).length,
		completion_tokens: text.length + calls.length,
		total_tokens: 0,
	};
	usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

	if (request.stream !== true || step.json) {
		const message = {
			role: "assistant",
			content: text.length > 0 || calls.length === 0 ? text.join("") : null,
			...(calls.length > 0 && {
				tool_calls: calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } })),
			}),
		};
		return json(res, 200, {
			id,
			object: "chat.completion",
			created,
			model,
			choices: [{ index: 0, message, finish_reason: finish }],
			usage,
		});
	}

	const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
		`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices, ...extra })}\n\n`;
	const deltaChunk = (delta: Delta, finishReason: string | null = null) => chunk([{ index: 0, delta, finish_reason: finishReason }]);

	const frames: string[] = [];
	frames.push(deltaChunk({ role: "assistant", content: "" }));
	for (const piece of text) frames.push(deltaChunk({ content: piece }));
	for (const delta of interleavedToolCallDeltas(calls)) frames.push(deltaChunk({ tool_calls: [delta] }));
	frames.push(...(step.raw ?? []));

	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
	res.flushHeaders();
	if (step.hang) {
		// The text (if any), then nothing more: the client's timeout or abort ends the exchange.
		for (const frame of frames) res.write(frame);
		await new Promise<void>((resolve) => req.socket.once("close", resolve));
		return;
	}

	const limit = step.cut_after ?? Number.POSITIVE_INFINITY;
	for (const [i, frame] of frames.entries()) {
		if (i >= limit) return cut(res);
		if (i > 0 && step.delay_ms) await sleep(step.delay_ms);
		if (res.destroyed) return;
		res.write(frame);
		// Frame 0 is the empty role chunk; frame 1 carries the first text.
		if (i === 1 && text.length > 0) onFirstText();
	}
	if (step.cut_after !== undefined) return cut(res);
	if (step.error_chunk) {
		res.write(`data: ${JSON.stringify(openAiError(PROVIDER_SECRET_TEXT, "server_error", "upstream_error"))}\n\n`);
		return void res.end();
	}
	if (step.delay_ms) await sleep(step.delay_ms);
	res.write(deltaChunk({}, finish));
	if (request.stream_options?.include_usage) res.write(chunk([], { usage }));
	res.end("data: [DONE]\n\n");
}

/** First fragment of each call carries id, type and name; the rest only arguments, calls taking turns. */
function interleavedToolCallDeltas(calls: { id: string; name: string; arguments: string; fragments: number }[]): ToolCallDelta[] {
	const pieces = calls.map((c) => split(c.arguments, c.fragments));
	const deltas: ToolCallDelta[] = calls.map((c, index) => ({
		index,
		id: c.id,
		type: "function",
		function: { name: c.name, arguments: "" },
	}));
	const longest = Math.max(0, ...pieces.map((p) => p.length));
	for (let round = 0; round < longest; round++) {
		for (const [index, parts] of pieces.entries()) {
			const part = parts[round];
			if (part !== undefined) deltas.push({ index, function: { arguments: part } });
		}
	}
	return deltas;
}

function split(text: string, count: number): string[] {
	const size = Math.max(1, Math.ceil(text.length / count));
	const parts: string[] = [];
	for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
	return parts;
}

/** Ends the body without its terminating chunk, as a dropped upstream connection does. */
function cut(res: ServerResponse) {
	// A short pause lets the chunks already written reach the client before the socket goes.
	setTimeout(() => res.socket?.destroy(), 20);
}

function lastUserMessage(body: unknown): string {
	const messages = (body as { messages?: unknown } | null)?.messages;
	if (!Array.isArray(messages)) return "";
	for (let i = messages.length - 1; i >= 0; i--) {
		const m = messages[i] as { role?: unknown; content?: unknown };
		if (m?.role !== "user") continue;
		if (typeof m.content === "string") return m.content;
		// The content-parts form: [{type:"text", text}, …].
		if (Array.isArray(m.content)) return m.content.map((p: { text?: unknown }) => (typeof p?.text === "string" ? p.text : "")).join("");
		return "";
	}
	return "";
}

function errorType(status: number): string {
	if (status === 401 || status === 403) return "authentication_error";
	if (status === 429) return "rate_limit_error";
	if (status >= 500) return "server_error";
	return "invalid_request_error";
}

function openAiError(message: string, type: string, code: string | null) {
	return { error: { message, type, param: null, code } };
}

/** A script's `delay_ms`: the provider's pacing is the behaviour the tests drive (a slow model), not a settle. */
function sleep(ms: number) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}
