/**
 * The one way the client reaches the API: the key goes in `X-API-Key` (or the admin token in
 * `X-Admin-API-Key`), never in the URL; path parameters are encoded; a non-2xx answer throws
 * the typed error of its status.
 */
import { errorFromResponse } from "./errors.js";
import type { ApiPath, BodyOf, HttpMethod, PathParamsOf, QueryOf, ResponseOf } from "./types.js";

export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

export interface Transport {
	baseUrl: string;
	/** Headers that carry the credential. */
	auth: Record<string, string>;
	fetch: FetchLike;
}

export type QueryValue = string | number | boolean | null | undefined;

export interface CallOptions {
	path?: Record<string, string | number>;
	query?: Record<string, QueryValue>;
	/** JSON body, or a body sent as is (FormData for uploads). */
	body?: unknown;
	headers?: Record<string, string>;
	signal?: AbortSignal;
}

/** The arguments of `method path`, typed from the schema; the keys a route has no use for are absent. */
export type TypedCall<P extends ApiPath, M extends HttpMethod> = ([PathParamsOf<P, M>] extends [never]
	? unknown
	: { path: PathParamsOf<P, M> }) &
	([QueryOf<P, M>] extends [never] ? unknown : { query?: QueryOf<P, M> }) &
	([BodyOf<P, M>] extends [never] ? unknown : { body: BodyOf<P, M> }) & { signal?: AbortSignal };

export function buildUrl(baseUrl: string, template: string, options: Pick<CallOptions, "path" | "query"> = {}): string {
	const filled = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
		const value = options.path?.[name];
		if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${template}`);
		return encodeURIComponent(String(value));
	});
	const url = new URL(filled.replace(/^\//, ""), baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
	for (const [key, value] of Object.entries(options.query ?? {})) {
		if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
	}
	return url.toString();
}

/** Sends one request and returns the answer when it is 2xx; otherwise throws the typed error. */
export async function send(transport: Transport, method: HttpMethod, template: string, options: CallOptions = {}): Promise<Response> {
	const headers = new Headers(options.headers);
	for (const [name, value] of Object.entries(transport.auth)) headers.set(name, value);
	let body: BodyInit | undefined;
	if (options.body instanceof FormData || typeof options.body === "string") body = options.body;
	else if (options.body !== undefined) {
		headers.set("content-type", "application/json");
		body = JSON.stringify(options.body);
	}
	const url = buildUrl(transport.baseUrl, template, options);
	const response = await transport.fetch(url, { method: method.toUpperCase(), headers, body, signal: options.signal });
	if (response.ok) return response;
	throw await errorFromResponse(response, `${method.toUpperCase()} ${new URL(url).pathname}`);
}

/** A JSON route: its parsed answer, or undefined for a 204. */
export async function call<P extends ApiPath, M extends HttpMethod>(
	transport: Transport,
	method: M,
	path: P,
	options?: TypedCall<P, M>,
): Promise<ResponseOf<P, M>> {
	const response = await send(transport, method, path, options as CallOptions | undefined);
	if (response.status === 204) return undefined as ResponseOf<P, M>;
	const text = await response.text();
	return (text ? JSON.parse(text) : undefined) as ResponseOf<P, M>;
}
