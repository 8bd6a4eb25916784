/**
 * `swap`'s clone of an external repository into a workspace: shallow (one commit of one
 * branch, no tags), every HTTP request through the outbound guard, redirects followed by hand
 * only to addresses the guard also allows, and a byte cap on everything read.
 *
 * The token reaches the remote only through isomorphic-git's `onAuth` (an Authorization
 * header); the remote URL written into the repository's config is the bare `repo`. A failure
 * is told in our own words: a server's error text may echo what it was sent, so it is never
 * passed on, and the token is redacted from whatever is said in any case.
 */
import git, { type FsClient, type GitHttpRequest, type GitHttpResponse, type HttpClient } from "isomorphic-git";
import { concatBytes } from "../src/bytes";
import { checkOutboundUrl, type OutboundPolicy } from "../src/outbound/url-guard";

export interface CloneSource {
	repo: string;
	ref: string;
	token: string | null;
}

export interface CloneLimits {
	/** Everything read from the remote, all requests together. */
	maxBytes: number;
	/** The whole clone. */
	timeoutMs: number;
}

export const DEFAULT_CLONE_LIMITS: CloneLimits = { maxBytes: 30 * 1024 * 1024, timeoutMs: 60_000 };

export type CloneOutcome = { ok: true } | { ok: false; detail: string };

const MAX_REDIRECTS = 5;

/** Why a guarded request was stopped: said to the client as is. */
class CloneRefusal extends Error {}

/** Empties the target (`empty`), then clones `source` into its `dir`; on failure it is left empty again. */
export async function cloneRepository(
	target: { fs: FsClient; dir: string; cache?: object; empty: () => void },
	source: CloneSource,
	policy: OutboundPolicy,
	limits: CloneLimits = DEFAULT_CLONE_LIMITS,
): Promise<CloneOutcome> {
	const checked = checkOutboundUrl(source.repo, policy);
	if (!checked.ok) return { ok: false, detail: `The repository address is not allowed (${checked.detail})` };
	const signal = AbortSignal.timeout(limits.timeoutMs);
	const http = guardedHttp(policy, limits.maxBytes, signal);
	let offeredToken = false;
	target.empty();
	try {
		await git.clone({
			fs: target.fs,
			dir: target.dir,
			cache: target.cache,
			http,
			url: checked.url.toString(),
			ref: source.ref,
			singleBranch: true,
			depth: 1,
			noTags: true,
			onAuth: () => {
				// Offered once: a second call means the token was refused, and retrying is pointless.
				if (!source.token || offeredToken) return { cancel: true };
				offeredToken = true;
				return { username: "x-access-token", password: source.token };
			},
		});
		return { ok: true };
	} catch (err) {
		target.empty();
		return { ok: false, detail: redact(describeFailure(http.refusal ?? err, source, signal), source.token) };
	}
}

function describeFailure(err: unknown, source: CloneSource, signal: AbortSignal): string {
	if (err instanceof CloneRefusal) return err.message;
	if (signal.aborted) return "The repository did not answer in time";
	const code = err instanceof Error ? (err as Error & { code?: string }).code : undefined;
	const status = (err as { data?: { statusCode?: number } } | null)?.data?.statusCode;
	if (code === "UserCanceledError" || status === 401 || status === 403) {
		return source.token ? "The repository refused the token" : "The repository needs a token";
	}
	if (code === "HttpError") return `The repository answered HTTP ${status ?? "error"}`;
	if (code === "NotFoundError" || code === "MissingNameError") return `The repository has no ref ${JSON.stringify(source.ref)}`;
	if (code === "SmartHttpError" || code === "ParseError" || code === "EmptyServerResponseError") {
		return "The address did not answer as a git repository";
	}
	return "The repository could not be cloned";
}

/** The token, and its Basic form, removed from text that might be shown. */
export function redact(text: string, token: string | null): string {
	if (!token) return text;
	let out = text.split(token).join("[redacted]");
	const basic = btoa(`x-access-token:${token}`);
	out = out.split(basic).join("[redacted]");
	return out;
}

/**
 * isomorphic-git's HTTP client on `fetch`, guarded: each address (the first and every
 * redirect) must pass the outbound guard; a redirect to another origin drops the
 * Authorization header; the bytes of all answers together stay under `maxBytes`.
 */
export function guardedHttp(policy: OutboundPolicy, maxBytes: number, signal: AbortSignal): HttpClient & { refusal: CloneRefusal | null } {
	let bytesRead = 0;
	const client = {
		/** The refusal that stopped the clone: isomorphic-git may report it as a parse error of its own. */
		refusal: null as CloneRefusal | null,
		async request(request: GitHttpRequest): Promise<GitHttpResponse> {
			const body = request.body ? await collect(request.body) : undefined;
			let target = request.url;
			let headers = { ...request.headers };
			const origin = new URL(request.url).origin;
			for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
				const checked = checkOutboundUrl(target, policy);
				if (!checked.ok) throw refuse(`The repository address is not allowed (${checked.detail})`);
				if (checked.url.origin !== origin) headers = withoutAuthorization(headers);
				const res = await fetch(checked.url, { method: request.method ?? "GET", headers, body, redirect: "manual", signal });
				const location = res.headers.get("location");
				if (res.status >= 300 && res.status < 400 && location) {
					await res.body?.cancel();
					target = new URL(location, checked.url).toString();
					continue;
				}
				return {
					url: checked.url.toString(),
					method: request.method,
					statusCode: res.status,
					statusMessage: res.statusText,
					headers: Object.fromEntries(res.headers),
					body: cappedChunks(res, (n) => {
						bytesRead += n;
						if (bytesRead > maxBytes) throw refuse(`The repository is larger than ${formatBytes(maxBytes)}`);
					}),
				};
			}
			throw refuse("The repository redirected too many times");
		},
	};
	const refuse = (detail: string) => {
		client.refusal = new CloneRefusal(detail);
		return client.refusal;
	};
	return client;
}

function formatBytes(n: number): string {
	if (n >= 1024 * 1024) return `${Math.round((n / (1024 * 1024)) * 10) / 10} MB`;
	return n >= 1024 ? `${Math.round(n / 1024)} KB` : `${n} bytes`;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
}

async function* cappedChunks(res: Response, count: (bytes: number) => void): AsyncGenerator<Uint8Array> {
	if (!res.body) return;
	const reader = res.body.getReader();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return;
			count(value.byteLength);
			yield value;
		}
	} finally {
		await reader.cancel().catch(() => undefined);
	}
}

async function collect(body: AsyncIterableIterator<Uint8Array> | Uint8Array[] | Uint8Array): Promise<Uint8Array> {
	if (body instanceof Uint8Array) return body;
	const chunks: Uint8Array[] = [];
	for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(chunk);
	return concatBytes(chunks);
}
