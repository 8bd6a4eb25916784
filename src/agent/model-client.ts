/**
 * The agent's one way to a model: an OpenAI-compatible `POST {base_url}/chat/completions`
 * with `stream: true`, read as it arrives. An account's own address passes the outbound guard
 * first; redirects are never followed (a redirect could lead past the guard); the whole call
 * has a timeout and the body a byte cap. Failures carry words fit for a client: the provider's
 * own error text may echo keys or internal addresses, so it is never passed on.
 */
import { readCappedBytes } from "../outbound/capped-body";
import { checkOutboundUrl, type OutboundPolicy } from "../outbound/url-guard";

export type ChatMessage =
	| { role: "system" | "user"; content: string }
	| { role: "assistant"; content: string | null; tool_calls?: ModelToolCall[] }
	| { role: "tool"; tool_call_id: string; content: string };

export interface ModelToolCall {
	id: string;
	type: "function";
	function: { name: string; arguments: string };
}

export interface ToolSpec {
	type: "function";
	function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Where a turn's model lives, resolved from the account's settings and the deployment's defaults. */
export interface ModelEndpoint {
	baseUrl: string;
	apiKey: string | null;
	model: string;
	/** An account's own address is judged by the outbound guard at every call. */
	guarded: boolean;
}

export interface ModelLimits {
	/** The whole call, first byte to last. */
	timeoutMs: number;
	/** The most bytes read from one response. */
	maxBytes: number;
}

export interface ModelStep {
	text: string;
	toolCalls: ModelToolCall[];
	finishReason: string | null;
	usage: { prompt_tokens: number; completion_tokens: number } | null;
}

export type ModelFailureKind =
	| "not_allowed"
	| "unauthorized"
	| "rate_limited"
	| "unavailable"
	| "bad_request"
	| "timeout"
	| "too_large"
	| "cut"
	| "malformed"
	/** The caller's signal ended the call (a reset or a cancelled workload), not the provider. */
	| "aborted";

/** Why a model call failed, in words fit for a client: never the provider's text, never a key. */
export class ModelFailure extends Error {
	constructor(
		readonly kind: ModelFailureKind,
		readonly detail: string,
	) {
		super(detail);
		this.name = "ModelFailure";
	}
}

export interface ModelStepRequest {
	endpoint: ModelEndpoint;
	messages: ChatMessage[];
	tools: ToolSpec[];
	policy: OutboundPolicy;
	limits?: Partial<ModelLimits>;
	/** Called with each piece of text as it arrives, before the step ends. */
	onText: (delta: string) => void;
	signal?: AbortSignal;
}

export const DEFAULT_MODEL_LIMITS: ModelLimits = { timeoutMs: 120_000, maxBytes: 8 * 1024 * 1024 };

/** Failures worth another try later: the provider was busy, slow or dropped the stream. */
export function isRetryable(kind: ModelFailureKind): boolean {
	return kind === "rate_limited" || kind === "unavailable" || kind === "timeout" || kind === "cut";
}

/** `{base_url}/chat/completions`, whether or not the base URL ends with a slash. */
export function chatCompletionsUrl(baseUrl: string): string {
	return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

const SETTINGS_HINT = "with PUT /user/models";

/** One model step: streams text through `onText`, returns the whole step; throws ModelFailure. */
export async function streamModelStep(request: ModelStepRequest): Promise<ModelStep> {
	const { endpoint, messages, tools } = request;
	const limits = { ...DEFAULT_MODEL_LIMITS, ...request.limits };
	const url = chatCompletionsUrl(endpoint.baseUrl);
	if (endpoint.guarded) {
		const check = checkOutboundUrl(url, request.policy);
		if (!check.ok)
			throw new ModelFailure("not_allowed", `The model base_url is not allowed (${check.detail}); set another ${SETTINGS_HINT}`);
	}
	if (request.signal?.aborted) throw new ModelFailure("aborted", "The model call was cancelled");

	// One controller ends the call for either reason; the flag tells the two apart afterwards.
	const controller = new AbortController();
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		controller.abort();
	}, limits.timeoutMs);
	const onCallerAbort = () => controller.abort();
	request.signal?.addEventListener("abort", onCallerAbort);
	const ended = (): ModelFailure | null => {
		if (timedOut) return new ModelFailure("timeout", `The model provider did not finish within ${Math.round(limits.timeoutMs / 1000)} s`);
		if (request.signal?.aborted) return new ModelFailure("aborted", "The model call was cancelled");
		return null;
	};

	const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
	if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
	const body = {
		model: endpoint.model,
		messages,
		...(tools.length > 0 && { tools, tool_choice: "auto" }),
		stream: true,
		stream_options: { include_usage: true },
	};
	try {
		let response: Response;
		try {
			response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), redirect: "manual", signal: controller.signal });
		} catch {
			throw ended() ?? new ModelFailure("unavailable", "The model provider could not be reached");
		}
		if (!response.ok) {
			await response.body?.cancel().catch(() => undefined);
			throw failureFor(response.status);
		}
		const cutOff = () => ended() ?? new ModelFailure("cut", "The model stream was cut off before it finished");
		// A provider that ignores `stream` answers with one completion object: taken as one step.
		if (response.headers.get("content-type")?.includes("application/json")) {
			return await readCompletion(response, limits.maxBytes, request.onText, cutOff);
		}
		return await readModelStream(response, limits.maxBytes, request.onText, cutOff);
	} finally {
		clearTimeout(timer);
		request.signal?.removeEventListener("abort", onCallerAbort);
	}
}

/** A status in words for a client; the provider's error body is never read. */
function failureFor(status: number): ModelFailure {
	if (status >= 300 && status < 400) {
		return new ModelFailure(
			"bad_request",
			`The model provider answered with a redirect (HTTP ${status}), which is not followed; set the final base_url ${SETTINGS_HINT}`,
		);
	}
	if (status === 401 || status === 403) {
		return new ModelFailure("unauthorized", `The model provider refused the credential (HTTP ${status}); check api_key ${SETTINGS_HINT}`);
	}
	if (status === 429) return new ModelFailure("rate_limited", "The model provider is rate limiting requests (HTTP 429); try again later");
	if (status >= 500) return new ModelFailure("unavailable", `The model provider is unavailable (HTTP ${status}); try again later`);
	return new ModelFailure(
		"bad_request",
		`The model provider rejected the request (HTTP ${status}); check model and base_url ${SETTINGS_HINT}`,
	);
}

/** The parts of a `chat.completion.chunk` this client reads. */
interface CompletionChunk {
	choices?: { delta?: { content?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[];
	usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
	error?: unknown;
}

interface ToolCallDelta {
	index?: number;
	id?: string;
	function?: { name?: string; arguments?: string };
}

/**
 * Reads an SSE body of completion chunks as it arrives: text goes to `onText` delta by delta,
 * tool-call fragments are joined by their index. The byte cap counts what the network
 * delivered, so an endless stream is stopped, not buffered.
 */
async function readModelStream(
	response: Response,
	maxBytes: number,
	onText: (delta: string) => void,
	cutOff: () => ModelFailure,
): Promise<ModelStep> {
	const step: ModelStep = { text: "", toolCalls: [], finishReason: null, usage: null };
	const calls = new Map<number, { id: string; name: string; arguments: string }>();
	if (!response.body) throw new ModelFailure("cut", "The model provider sent no body");
	const reader = response.body.getReader();
	const decoder = new TextDecoder();
	let bytes = 0;
	let pending = "";
	let data: string[] = [];
	let done = false;

	const dispatch = () => {
		const payload = data.join("\n");
		data = [];
		if (payload === "") return;
		if (payload.trim() === "[DONE]") {
			done = true;
			return;
		}
		let chunk: CompletionChunk;
		try {
			chunk = JSON.parse(payload) as CompletionChunk;
		} catch {
			throw new ModelFailure("malformed", "The model provider sent a stream that is not valid JSON");
		}
		if (typeof chunk !== "object" || chunk === null)
			throw new ModelFailure("malformed", "The model provider sent a chunk that is not an object");
		if (chunk.error !== undefined)
			throw new ModelFailure("unavailable", "The model provider reported an error in the middle of the stream; try again later");
		if (chunk.usage) step.usage = { prompt_tokens: chunk.usage.prompt_tokens ?? 0, completion_tokens: chunk.usage.completion_tokens ?? 0 };
		const choice = chunk.choices?.[0];
		if (!choice) return;
		const content = choice.delta?.content;
		if (typeof content === "string" && content !== "") {
			step.text += content;
			onText(content);
		}
		for (const fragment of choice.delta?.tool_calls ?? []) {
			const index = fragment.index ?? 0;
			const call = calls.get(index) ?? { id: "", name: "", arguments: "" };
			if (fragment.id) call.id = fragment.id;
			if (fragment.function?.name && !call.name) call.name = fragment.function.name;
			if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
			calls.set(index, call);
		}
		if (choice.finish_reason) step.finishReason = choice.finish_reason;
	};

	try {
		while (!done) {
			// A failed read is a dropped connection, or our own abort (timeout, caller); cutOff tells which.
			const { done: ended, value } = await reader.read().catch(() => {
				throw cutOff();
			});
			if (ended) break;
			bytes += value.byteLength;
			if (bytes > maxBytes) throw new ModelFailure("too_large", `The model response passed the limit of ${maxBytes} bytes`);
			pending += decoder.decode(value, { stream: true });
			const lines = pending.split(/\r\n|\r|\n/);
			pending = lines.pop() ?? "";
			for (const line of lines) {
				if (line === "") dispatch();
				else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
				if (done) break;
			}
		}
	} finally {
		// Nothing after [DONE] (or a failure) is needed; cancelling frees the connection.
		reader.cancel().catch(() => undefined);
	}
	if (!done) {
		// A last event without its blank line still counts.
		if (pending.startsWith("data:")) data.push(pending.slice(pending.startsWith("data: ") ? 6 : 5));
		dispatch();
	}
	if (!done && step.finishReason === null) throw cutOff();
	step.toolCalls = orderedToolCalls(calls);
	return step;
}

function orderedToolCalls(calls: Map<number, { id: string; name: string; arguments: string }>): ModelToolCall[] {
	return [...calls.entries()]
		.sort(([a], [b]) => a - b)
		.map(([index, call]) => {
			if (!call.name) throw new ModelFailure("malformed", "The model provider sent a tool call without a name");
			return { id: call.id || `call_${index}`, type: "function", function: { name: call.name, arguments: call.arguments } };
		});
}

interface Completion {
	choices?: { message?: { content?: string | null; tool_calls?: ModelToolCall[] }; finish_reason?: string | null }[];
	usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
	error?: unknown;
}

/** A whole `chat.completion` object, under the same byte cap. */
async function readCompletion(
	response: Response,
	maxBytes: number,
	onText: (delta: string) => void,
	cutOff: () => ModelFailure,
): Promise<ModelStep> {
	const bytes = await readCappedBytes(response, maxBytes).catch(() => {
		throw cutOff();
	});
	if (!bytes) throw new ModelFailure("too_large", `The model response passed the limit of ${maxBytes} bytes`);
	let completion: Completion;
	try {
		completion = JSON.parse(new TextDecoder().decode(bytes)) as Completion;
	} catch {
		throw new ModelFailure("malformed", "The model provider sent a response that is not valid JSON");
	}
	if (typeof completion !== "object" || completion === null)
		throw new ModelFailure("malformed", "The model provider sent a response that is not an object");
	if (completion.error !== undefined) throw new ModelFailure("unavailable", "The model provider reported an error; try again later");
	const choice = completion.choices?.[0];
	if (!choice?.message) throw new ModelFailure("malformed", "The model provider sent a response without a message");
	const text = typeof choice.message.content === "string" ? choice.message.content : "";
	if (text !== "") onText(text);
	const calls = new Map<number, { id: string; name: string; arguments: string }>();
	for (const [index, call] of (choice.message.tool_calls ?? []).entries()) {
		calls.set(index, { id: call.id ?? "", name: call.function?.name ?? "", arguments: call.function?.arguments ?? "" });
	}
	const usage = completion.usage
		? { prompt_tokens: completion.usage.prompt_tokens ?? 0, completion_tokens: completion.usage.completion_tokens ?? 0 }
		: null;
	return { text, toolCalls: orderedToolCalls(calls), finishReason: choice.finish_reason ?? null, usage };
}
