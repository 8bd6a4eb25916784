/**
 * The dashboard's only way to the API (same origin), on the typed client's transport
 * (`send` of @meetbot/client). The key lives in this tab's sessionStorage and travels only in
 * the `X-API-Key` header: never in a URL (so never in a log line) and never in localStorage.
 * `/ws` takes a short-lived ticket instead (POST /auth/ticket).
 */
import { type FieldError, type HttpMethod, MeetbotApiError, send, type Transport } from "@meetbot/client";

const KEY_SLOT = "meetbot.key";
const METRICS_TOKEN_SLOT = "meetbot.metrics-token";

export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly detail: string,
	) {
		super(detail);
	}
}

export const session = {
	key: (): string | null => sessionStorage.getItem(KEY_SLOT),
	signIn: (key: string) => sessionStorage.setItem(KEY_SLOT, key),
	// The operator's metrics token (below) leaves with the key.
	signOut: () => {
		sessionStorage.removeItem(KEY_SLOT);
		sessionStorage.removeItem(METRICS_TOKEN_SLOT);
	},
};

/**
 * The operator's FLEET_METRICS_TOKEN, for the Join health page (docs/dashboard.md#join-health):
 * kept apart from the key in this tab's sessionStorage, and sent only as the Bearer of the
 * operator's routes, never in a URL and never to a user's route.
 */
export const metricsToken = {
	get: (): string | null => sessionStorage.getItem(METRICS_TOKEN_SLOT),
	set: (token: string) => sessionStorage.setItem(METRICS_TOKEN_SLOT, token),
	forget: () => sessionStorage.removeItem(METRICS_TOKEN_SLOT),
};

/** `{detail}` as a line of text: the sentence, or the first field error of a 422. */
function detailLine(detail: string | FieldError[], status: number): string {
	if (typeof detail === "string") return detail;
	const first = detail[0];
	if (!first) return `HTTP ${status}`;
	return `${first.loc.length > 0 ? `${first.loc.join(".")}: ` : ""}${first.msg || "invalid"}`;
}

let unauthorized: (detail: string) => void = () => undefined;

/**
 * Registers what happens when the API refuses the key (401: revoked or expired) on any call,
 * so the shell can sign out instead of every page showing the error.
 */
export function onUnauthorized(handler: (detail: string) => void) {
	unauthorized = handler;
}

function refused(status: number, detail: string): ApiError {
	if (status === 401) unauthorized(detail);
	return new ApiError(status, detail);
}

/** This tab's transport: the page's own origin, and the key (when signed in) as the header. */
function transport(): Transport {
	const key = session.key();
	return { baseUrl: location.origin, auth: key ? { "X-API-Key": key } : {}, fetch: (input, init) => fetch(input, init) };
}

/**
 * A path as the pages write it, query included. The client reads `{name}` as a path parameter;
 * a page's path has none, so braces are sent percent-encoded, as fetch would send them anyway.
 */
const literal = (path: string) => path.replace(/[{}]/g, encodeURIComponent);

/** What a call may carry: a JSON body is serialised by the caller, so every body here is a string. */
export interface CallInit {
	headers?: Record<string, string>;
	body?: string;
	signal?: AbortSignal;
}

/**
 * Sends one call with the key in its header. A non-2xx answer throws an ApiError with the
 * API's `detail` (read by the client, as every caller of the API reads it); a 401 signs out.
 */
export async function sendWithKey(method: string, path: string, init: CallInit = {}): Promise<Response> {
	try {
		return await send(transport(), method.toLowerCase() as HttpMethod, literal(path), init);
	} catch (err) {
		if (err instanceof MeetbotApiError) throw refused(err.status, detailLine(err.detail, err.status));
		throw err;
	}
}

/**
 * A GET of an operator's route with the metrics token as its only credential: the key is not
 * sent, and a refusal is the token's, so it never signs the tab out.
 */
export async function requestAsOperator<T>(path: string, signal?: AbortSignal): Promise<T> {
	const token = metricsToken.get();
	if (!token) throw new ApiError(401, "Enter the metrics token");
	const operator: Transport = {
		baseUrl: location.origin,
		auth: { Authorization: `Bearer ${token}` },
		fetch: (input, init) => fetch(input, init),
	};
	try {
		return (await (await send(operator, "get", literal(path), { signal })).json()) as T;
	} catch (err) {
		if (err instanceof MeetbotApiError) throw new ApiError(err.status, detailLine(err.detail, err.status));
		throw err;
	}
}

/** A JSON call; non-2xx becomes an ApiError carrying the API's `detail`. 204 resolves to undefined. */
export async function request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
	const res = await sendWithKey(method, path, {
		body: body === undefined ? undefined : JSON.stringify(body),
		headers: body === undefined ? undefined : { "Content-Type": "application/json" },
		signal,
	});
	if (res.status === 204) return undefined as T;
	const text = await res.text();
	try {
		return (text ? JSON.parse(text) : null) as T;
	} catch {
		return null as T;
	}
}

export interface ServerSentEvent {
	id?: string;
	event: string;
	data: string;
}

/**
 * Reads a Server-Sent Events response (agent chat, the meeting stream) through fetch, so the
 * key stays in a header: EventSource cannot send one. Resolves when the stream ends.
 */
export async function readEvents(
	path: string,
	init: CallInit & { method?: string },
	onEvent: (event: ServerSentEvent) => void,
): Promise<void> {
	const { method = "GET", ...call } = init;
	const res = await sendWithKey(method, path, { ...call, headers: { Accept: "text/event-stream", ...call.headers } });
	if (!res.body) return;
	const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
	let buffer = "";
	for (;;) {
		const { value, done } = await reader.read();
		if (done) return;
		buffer += value;
		let end = buffer.indexOf("\n\n");
		while (end >= 0) {
			const block = buffer.slice(0, end);
			buffer = buffer.slice(end + 2);
			const event: ServerSentEvent = { event: "message", data: "" };
			const data: string[] = [];
			for (const line of block.split("\n")) {
				if (line.startsWith(":")) continue;
				const colon = line.indexOf(":");
				const field = colon < 0 ? line : line.slice(0, colon);
				const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
				if (field === "event") event.event = text;
				else if (field === "id") event.id = text;
				else if (field === "data") data.push(text);
			}
			event.data = data.join("\n");
			if (data.length > 0 || event.event !== "message") onEvent(event);
			end = buffer.indexOf("\n\n");
		}
	}
}
