/**
 * The agent's one way to a model: an OpenAI-compatible `POST {base_url}/chat/completions`
 * with `stream: true`, read as it arrives. SKELETON: the types are the contract between the
 * runtime and this client; the implementation lands with the model client work.
 */
import type { OutboundPolicy } from "../outbound/url-guard";

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
	| "malformed";

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

/** One model step: streams text through `onText`, returns the whole step; throws ModelFailure. */
export async function streamModelStep(_request: ModelStepRequest): Promise<ModelStep> {
	throw new ModelFailure("unavailable", "The model client is not built yet");
}
