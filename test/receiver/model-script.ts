/**
 * The scripting language of the test model server (model-server.ts), apart from the server so
 * that workerd tests can import it without Node's types.
 */

/** Text an upstream might put in an error: tests prove it never reaches a client. */
export const PROVIDER_SECRET_TEXT = "sk-live-provider-secret upstream overloaded";

export interface ScriptedToolCall {
	name: string;
	/** The call's arguments: a JSON text, or a value sent as its JSON text. */
	arguments: string | Record<string, unknown>;
	/** How many pieces the arguments arrive in (default 3). */
	fragments?: number;
	/** The call id (default a fresh `call_…`). */
	id?: string;
}

/**
 * One answer. Text and tool calls may be combined (text first). `delay_ms` waits before each
 * chunk after the first. Every stream ends with `finish_reason` "stop", or "tool_calls" when
 * the step has tool calls, unless `finish_reason` says otherwise.
 */
export interface ModelStepScript {
	text?: string[];
	tool_calls?: ScriptedToolCall[];
	delay_ms?: number;
	finish_reason?: string;
	/** An HTTP error with an OpenAI-style error body (default body carries PROVIDER_SECRET_TEXT). */
	status?: number;
	body?: string | Record<string, unknown>;
	/** Closes the socket after this many chunks: no finish, no [DONE]. */
	cut_after?: number;
	/** After the text, a `data: {"error":…}` chunk, then the body ends. */
	error_chunk?: boolean;
	/** Sends the headers (and the text, if any), then nothing until the client gives up. */
	hang?: boolean;
	/** Answers 307 to this address. */
	redirect?: string;
	/** Answers one `chat.completion` object even to a streaming request, as providers that ignore `stream` do. */
	json?: boolean;
	/** Written into the SSE body as they are, after the text (e.g. a chunk that is not JSON). */
	raw?: string[];
}

export interface RecordedModelRequest {
	method: string;
	path: string;
	headers: Record<string, string | string[] | undefined>;
	/** The parsed JSON body (the raw text when it is not JSON). */
	body: unknown;
	received_at: number;
}
