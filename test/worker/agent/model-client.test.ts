import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
	type ChatMessage,
	isRetryable,
	type ModelEndpoint,
	ModelFailure,
	type ModelFailureKind,
	type ModelLimits,
	type ModelStep,
	streamModelStep,
	type ToolSpec,
} from "../../../src/agent/model-client";
import { outboundPolicy } from "../../../src/outbound/url-guard";
import type { ModelStepScript, RecordedModelRequest } from "../../receiver/model-script";

const API_KEY = "sk-account-model-key-0123456789";
const PROVIDER_TEXT = ["sk-live-provider-secret", "upstream overloaded"];

async function script(marker: string, steps: ModelStepScript[]) {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__script`, { method: "POST", body: JSON.stringify({ marker, steps }) });
	expect(res.status).toBe(200);
}

async function sent(marker: string): Promise<RecordedModelRequest[]> {
	const res = await fetch(`${env.MODEL_SERVER_URL}/__requests?marker=${encodeURIComponent(marker)}`);
	return ((await res.json()) as { requests: RecordedModelRequest[] }).requests;
}

function endpoint(overrides: Partial<ModelEndpoint> = {}): ModelEndpoint {
	return { baseUrl: `${env.MODEL_SERVER_URL}/v1`, apiKey: API_KEY, model: "test-model-1", guarded: true, ...overrides };
}

interface Run {
	endpoint?: ModelEndpoint;
	tools?: ToolSpec[];
	limits?: Partial<ModelLimits>;
	signal?: AbortSignal;
	onText?: (delta: string) => void;
	allowPrivate?: boolean;
}

function messagesFor(marker: string): ChatMessage[] {
	return [
		{ role: "system", content: "You are the meeting assistant." },
		{ role: "user", content: `Summarize my last meeting ${marker}` },
	];
}

function run(marker: string, options: Run = {}): Promise<ModelStep> {
	return streamModelStep({
		endpoint: options.endpoint ?? endpoint(),
		messages: messagesFor(marker),
		tools: options.tools ?? [],
		policy: options.allowPrivate === false ? { allowPrivate: false } : outboundPolicy(env),
		limits: options.limits,
		signal: options.signal,
		onText: options.onText ?? (() => undefined),
	});
}

async function failureOf(promise: Promise<unknown>): Promise<ModelFailure> {
	const error = await promise.then(
		() => null,
		(err: unknown) => err,
	);
	expect(error).toBeInstanceOf(ModelFailure);
	return error as ModelFailure;
}

function expectNoLeak(failure: ModelFailure) {
	for (const text of [...PROVIDER_TEXT, API_KEY]) {
		expect(failure.detail).not.toContain(text);
		expect(failure.message).not.toContain(text);
	}
}

const TOOLS: ToolSpec[] = [
	{
		type: "function",
		function: {
			name: "list_meetings",
			description: "List the caller's meetings",
			parameters: { type: "object", properties: { limit: { type: "integer" } } },
		},
	},
];

describe("streamModelStep: the stream", () => {
	it("hands each content delta to onText in order, before the step ends, and reads the usage", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["Hel", "lo", ", wor", "ld"], delay_ms: 5 }]);
		const events: string[] = [];
		const step = await run(marker, { onText: (d) => events.push(`delta:${d}`) });
		events.push("end");
		expect(events).toEqual(["delta:Hel", "delta:lo", "delta:, wor", "delta:ld", "end"]);
		expect(step.text).toBe("Hello, world");
		expect(step.finishReason).toBe("stop");
		expect(step.toolCalls).toEqual([]);
		expect(step.usage?.completion_tokens).toBe(4);
		expect(step.usage?.prompt_tokens).toBeGreaterThan(0);
	});

	it("delivers deltas while the stream is still open (the provider has not finished)", async () => {
		const marker = crypto.randomUUID();
		// The server sends two deltas and then holds the stream open: only a client that reads
		// incrementally sees them; one that waits for the end would run into its timeout instead.
		await script(marker, [{ text: ["first ", "second"], hang: true }]);
		const controller = new AbortController();
		const deltas: string[] = [];
		const failure = await failureOf(
			run(marker, {
				signal: controller.signal,
				limits: { timeoutMs: 10_000 },
				onText: (d) => {
					deltas.push(d);
					if (deltas.length === 2) controller.abort();
				},
			}),
		);
		expect(deltas).toEqual(["first ", "second"]);
		expect(failure.kind).toBe("aborted");
		expect(isRetryable(failure.kind)).toBe(false);
	});

	it("assembles two interleaved tool calls from their argument fragments, by index", async () => {
		const marker = crypto.randomUUID();
		const first = { limit: 5, status: "completed", platform: "google_meet" };
		const second = { meeting_id: "abc-defg-hij", include: ["segments", "speakers"] };
		await script(marker, [
			{
				text: ["Let me look."],
				tool_calls: [
					{ name: "list_meetings", arguments: first, fragments: 4 },
					{ name: "get_transcript", arguments: second, fragments: 3 },
				],
			},
		]);
		const deltas: string[] = [];
		const step = await run(marker, { tools: TOOLS, onText: (d) => deltas.push(d) });
		expect(deltas).toEqual(["Let me look."]);
		expect(step.finishReason).toBe("tool_calls");
		expect(step.toolCalls.map((c) => c.function.name)).toEqual(["list_meetings", "get_transcript"]);
		expect(JSON.parse(step.toolCalls[0]?.function.arguments ?? "")).toEqual(first);
		expect(JSON.parse(step.toolCalls[1]?.function.arguments ?? "")).toEqual(second);
		expect(step.toolCalls.every((c) => c.type === "function" && c.id.startsWith("call_"))).toBe(true);
		expect(new Set(step.toolCalls.map((c) => c.id)).size).toBe(2);
	});

	it("sends the model, the credential, the tools and the streaming flags", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["ok"] }]);
		await run(marker, { tools: TOOLS });
		const [request, ...more] = await sent(marker);
		expect(more).toEqual([]);
		expect(request?.method).toBe("POST");
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBe(`Bearer ${API_KEY}`);
		expect(request?.body).toEqual({
			model: "test-model-1",
			messages: messagesFor(marker),
			tools: TOOLS,
			tool_choice: "auto",
			stream: true,
			stream_options: { include_usage: true },
		});
	});

	it("sends no authorization header without a key, no tools when there are none, and tolerates a trailing slash", async () => {
		const marker = crypto.randomUUID();
		const step = await run(marker, { endpoint: endpoint({ baseUrl: `${env.MODEL_SERVER_URL}/v1/`, apiKey: null }) });
		expect(step.text).toBe("ok");
		const [request] = await sent(marker);
		expect(request?.path).toBe("/v1/chat/completions");
		expect(request?.headers.authorization).toBeUndefined();
		const body = request?.body as Record<string, unknown>;
		expect(body.stream).toBe(true);
		expect("tools" in body).toBe(false);
		expect("tool_choice" in body).toBe(false);
	});
});

describe("streamModelStep: providers that do not stream", () => {
	it("takes a whole chat.completion object as the step", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ json: true, text: ["All ", "at once"], tool_calls: [{ name: "list_meetings", arguments: { limit: 2 } }] }]);
		const deltas: string[] = [];
		const step = await run(marker, { onText: (d) => deltas.push(d) });
		expect(deltas).toEqual(["All at once"]);
		expect(step.text).toBe("All at once");
		expect(step.finishReason).toBe("tool_calls");
		expect(step.toolCalls.map((c) => [c.function.name, JSON.parse(c.function.arguments)])).toEqual([["list_meetings", { limit: 2 }]]);
		expect(step.usage?.prompt_tokens).toBeGreaterThan(0);
	});
});

describe("streamModelStep: failures", () => {
	const statuses: [number, ModelFailureKind][] = [
		[401, "unauthorized"],
		[403, "unauthorized"],
		[429, "rate_limited"],
		[400, "bad_request"],
		[404, "bad_request"],
		[422, "bad_request"],
		[500, "unavailable"],
		[503, "unavailable"],
	];
	for (const [status, kind] of statuses) {
		it(`maps HTTP ${status} to ${kind} without the provider's text or the key`, async () => {
			const marker = crypto.randomUUID();
			await script(marker, [{ status }]);
			const failure = await failureOf(run(marker));
			expect(failure.kind).toBe(kind);
			expect(failure.detail).toContain(`HTTP ${status}`);
			expectNoLeak(failure);
			expect(isRetryable(failure.kind)).toBe(status === 429 || status >= 500);
		});
	}

	it("points an unauthorized user at PUT /user/models and api_key", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ status: 401, body: { error: { message: `Incorrect API key provided: ${API_KEY}` } } }]);
		const failure = await failureOf(run(marker));
		expect(failure.detail).toBe("The model provider refused the credential (HTTP 401); check api_key with PUT /user/models");
		expectNoLeak(failure);
	});

	it("treats an error chunk in the middle of the stream as unavailable, after the text before it", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["partial"], error_chunk: true }]);
		const deltas: string[] = [];
		const failure = await failureOf(run(marker, { onText: (d) => deltas.push(d) }));
		expect(deltas).toEqual(["partial"]);
		expect(failure.kind).toBe("unavailable");
		expectNoLeak(failure);
	});

	it("reports a stream cut before its end as cut, with the text that did arrive already delivered", async () => {
		const marker = crypto.randomUUID();
		// Chunk 1 is the role, 2 and 3 are "a" and "b"; the socket closes before "c".
		await script(marker, [{ text: ["a", "b", "c", "d"], cut_after: 3 }]);
		const deltas: string[] = [];
		const failure = await failureOf(run(marker, { onText: (d) => deltas.push(d) }));
		expect(failure.kind).toBe("cut");
		expect(deltas).toEqual(["a", "b"]);
		expect(isRetryable("cut")).toBe(true);
	});

	it("lets an error of onText itself through unchanged, not as a provider failure", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["a", "b"] }]);
		const mine = new Error("the client went away");
		const error = await run(marker, {
			onText: () => {
				throw mine;
			},
		}).then(
			() => null,
			(err: unknown) => err,
		);
		expect(error).toBe(mine);
	});

	it("reports a chunk that is not JSON as malformed", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["fine"], raw: ['data: {"choices": [ not json\n\n'] }]);
		const failure = await failureOf(run(marker));
		expect(failure.kind).toBe("malformed");
		expect(isRetryable("malformed")).toBe(false);
	});

	it("stops at the byte cap while reading, not after buffering everything", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: Array.from({ length: 200 }, () => "x".repeat(100)) }]);
		let received = 0;
		const failure = await failureOf(run(marker, { limits: { maxBytes: 4096 }, onText: (d) => (received += d.length) }));
		expect(failure.kind).toBe("too_large");
		expect(received).toBeLessThan(4096);
		// The same answer fits under the default cap.
		await script(marker, [{ text: Array.from({ length: 200 }, () => "x".repeat(100)) }]);
		expect((await run(marker)).text.length).toBe(20_000);
	});

	it("times out a provider that sends headers and then nothing", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ hang: true }]);
		const failure = await failureOf(run(marker, { limits: { timeoutMs: 300 } }));
		expect(failure.kind).toBe("timeout");
		expect(isRetryable("timeout")).toBe(true);
	});

	it("does not follow a redirect", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ redirect: `${env.MODEL_SERVER_URL}/elsewhere/v1/chat/completions` }]);
		const failure = await failureOf(run(marker));
		expect(failure.kind).toBe("bad_request");
		expect(failure.detail).toContain("redirect");
		// A followed 307 would have sent the same body again, to /elsewhere.
		expect((await sent(marker)).map((r) => r.path)).toEqual(["/v1/chat/completions"]);
	});

	it("reports an unreachable provider as unavailable", async () => {
		const marker = crypto.randomUUID();
		const failure = await failureOf(run(marker, { endpoint: endpoint({ baseUrl: "http://127.0.0.1:1/v1" }) }));
		expect(failure.kind).toBe("unavailable");
		expectNoLeak(failure);
	});
});

describe("streamModelStep: the outbound guard", () => {
	it("refuses a metadata address before sending anything, even when private targets are allowed", async () => {
		expect(outboundPolicy(env).allowPrivate).toBe(true);
		const failure = await failureOf(run(crypto.randomUUID(), { endpoint: endpoint({ baseUrl: "http://169.254.169.254/v1" }) }));
		expect(failure.kind).toBe("not_allowed");
		expect(failure.detail).toContain("PUT /user/models");
		expectNoLeak(failure);
	});

	it("refuses an account's loopback address under the default policy: the server receives nothing", async () => {
		const marker = crypto.randomUUID();
		await script(marker, [{ text: ["should not be asked"] }]);
		const failure = await failureOf(run(marker, { allowPrivate: false }));
		expect(failure.kind).toBe("not_allowed");
		expect(await sent(marker)).toEqual([]);
	});

	it("does not judge the deployment's own address (operator configuration)", async () => {
		const marker = crypto.randomUUID();
		const step = await run(marker, { allowPrivate: false, endpoint: endpoint({ guarded: false }) });
		expect(step.text).toBe("ok");
		expect(await sent(marker)).toHaveLength(1);
	});

	it("sends nothing when the caller has already given up", async () => {
		const marker = crypto.randomUUID();
		const failure = await failureOf(run(marker, { signal: AbortSignal.abort() }));
		expect(failure.kind).toBe("aborted");
		expect(await sent(marker)).toEqual([]);
	});
});
