/**
 * `swap`'s clone of an external repository into a workspace: shallow (one commit of one
 * branch, no tags), every HTTP request through the outbound guard, redirects followed by hand
 * only to addresses the guard also allows, and bounded (durable-objects/workspace/clone-limits.ts): bytes
 * read, the pack checked as it arrives against what it declares (pack-scan.ts) before
 * isomorphic-git keeps or indexes it, and the checkout counted (clone-checkout.ts).
 *
 * The token reaches the remote only through isomorphic-git's `onAuth` (an Authorization
 * header); the remote URL written into the repository's config is the bare `repo`. A failure
 * is told in our own words: a server's error text may echo what it was sent, so it is never
 * passed on, and the token is redacted from whatever is said in any case.
 */
import git, { type GitHttpRequest, type GitHttpResponse, type HttpClient } from "isomorphic-git";
import { concatBytes } from "../../src/bytes";
import { checkOutboundUrl, type OutboundPolicy } from "../../src/outbound/url-guard";
import { type CheckoutTarget, checkOutWithin } from "./clone-checkout";
import { type CloneLimits, CloneRefusal, DEFAULT_CLONE_LIMITS, formatBytes, tooLarge } from "./clone-limits";
import { type PackTally, UploadPackScan } from "./pack-scan";

export interface CloneSource {
	repo: string;
	ref: string;
	token: string | null;
}

/** A refusal's status is 413 past a limit, 502 when the remote failed; `pack` is what the pack scan saw. */
export type CloneOutcome = { ok: true } | { ok: false; status: 413 | 502; detail: string; pack: PackTally | null };

const MAX_REDIRECTS = 5;

/** Empties the target (`empty`), then clones `source` into its `dir`; on failure it is left empty again. */
export async function cloneRepository(
	target: CheckoutTarget & { empty: () => void },
	source: CloneSource,
	policy: OutboundPolicy,
	limits: CloneLimits = DEFAULT_CLONE_LIMITS,
): Promise<CloneOutcome> {
	const checked = checkOutboundUrl(source.repo, policy);
	if (!checked.ok) return { ok: false, status: 502, detail: `The repository address is not allowed (${checked.detail})`, pack: null };
	const deadline = Date.now() + limits.timeoutMs;
	const signal = AbortSignal.timeout(limits.timeoutMs);
	// The first refusal is the reason: isomorphic-git may report it as an error of its own.
	let refusal: CloneRefusal | null = null;
	const refuse = (why: CloneRefusal) => {
		refusal ??= why;
		return why;
	};
	const http = guardedHttp(policy, limits, signal, refuse);
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
			// Checked out below, once the tree is counted.
			noCheckout: true,
			onAuth: () => {
				// Offered once: a second call means the token was refused, and retrying is pointless.
				if (!source.token || offeredToken) return { cancel: true };
				offeredToken = true;
				return { username: "x-access-token", password: source.token };
			},
		});
		await checkOutWithin(target, source.ref, limits, deadline, refuse, () => refusal);
		return { ok: true };
	} catch (err) {
		target.empty();
		const why = describeFailure(refusal ?? err, source, signal);
		return { ok: false, status: why.status, detail: redact(why.detail, source.token), pack: http.scanned };
	}
}

function describeFailure(err: unknown, source: CloneSource, signal: AbortSignal): { status: 413 | 502; detail: string } {
	const failed = (detail: string) => ({ status: 502 as const, detail });
	if (err instanceof CloneRefusal) return { status: err.status, detail: err.message };
	if (signal.aborted) return failed("The repository did not answer in time");
	const code = err instanceof Error ? (err as Error & { code?: string }).code : undefined;
	const status = (err as { data?: { statusCode?: number } } | null)?.data?.statusCode;
	if (code === "UserCanceledError" || status === 401 || status === 403) {
		return failed(source.token ? "The repository refused the token" : "The repository needs a token");
	}
	if (code === "HttpError") return failed(`The repository answered HTTP ${status ?? "error"}`);
	if (code === "NotFoundError" || code === "MissingNameError") return failed(`The repository has no ref ${JSON.stringify(source.ref)}`);
	if (code === "SmartHttpError" || code === "ParseError" || code === "EmptyServerResponseError") {
		return failed("The address did not answer as a git repository");
	}
	return failed("The repository could not be cloned");
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
 * Authorization header; the bytes of all answers together stay under `maxBytes`; and the
 * upload-pack answer (the pack) is scanned as it arrives, so a pack past the limits is refused
 * before isomorphic-git has it whole.
 */
export function guardedHttp(
	policy: OutboundPolicy,
	limits: CloneLimits,
	signal: AbortSignal,
	refuse: (why: CloneRefusal) => CloneRefusal,
): HttpClient & { scanned: PackTally | null } {
	let bytesRead = 0;
	const client = {
		/** What the pack scan saw, once a pack was asked for. */
		scanned: null as PackTally | null,
		async request(request: GitHttpRequest): Promise<GitHttpResponse> {
			const body = request.body ? await collect(request.body) : undefined;
			let target = request.url;
			let headers = { ...request.headers };
			const origin = new URL(request.url).origin;
			const asksForPack = request.method === "POST" && new URL(request.url).pathname.endsWith("/git-upload-pack");
			const scan = asksForPack ? new UploadPackScan(limits) : null;
			if (scan) client.scanned = scan.tally;
			for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
				const checked = checkOutboundUrl(target, policy);
				if (!checked.ok) throw refuse(new CloneRefusal(`The repository address is not allowed (${checked.detail})`, 502));
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
					body: checkedChunks(res, (chunk) => {
						bytesRead += chunk.byteLength;
						if (bytesRead > limits.maxBytes) throw refuse(tooLarge(`The repository is larger than ${formatBytes(limits.maxBytes)}`));
						try {
							scan?.push(chunk);
						} catch (err) {
							throw err instanceof CloneRefusal ? refuse(err) : err;
						}
					}),
				};
			}
			throw refuse(new CloneRefusal("The repository redirected too many times", 502));
		},
	};
	return client;
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
	return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
}

/** The answer's chunks, each passed to `check` (which throws to stop the clone) before isomorphic-git sees it. */
async function* checkedChunks(res: Response, check: (chunk: Uint8Array) => void): AsyncGenerator<Uint8Array> {
	if (!res.body) return;
	const reader = res.body.getReader();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) return;
			check(value);
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
