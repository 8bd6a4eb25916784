/**
 * Every request the bot host makes to a URL a user chose goes through here: the URL is judged
 * by the Worker's guard (src/outbound/url-guard.ts), the name is resolved here and EVERY
 * address is judged by the same table, and the connection is pinned to the address that was
 * judged (no second lookup a rebinding DNS server could answer differently). Redirects are
 * followed by hand, each hop judged again, and bodies are read with a byte cap.
 */
import { lookup } from "node:dns/promises";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import { checkOutboundUrl, checkResolvedAddress, type OutboundPolicy, outboundPolicy } from "../../src/outbound/url-guard.ts";

export interface EgressPolicy extends OutboundPolicy {
	/**
	 * Exact `address:port` targets (`[v6]:port` for IPv6) reachable although private: an
	 * operator's own service (BOT_HOST_PRIVATE_TARGETS, e.g. an internal transcription server),
	 * or a test's loopback server. Metadata addresses stay refused.
	 */
	exceptions?: ReadonlySet<string>;
	/** Name resolution; tests map names to chosen addresses. Default: the system resolver. */
	resolve?: (hostname: string) => Promise<string[]>;
}

/** A refusal with a sentence fit for the bot's log: what was asked for, and why not. */
export class EgressRefused extends Error {
	override readonly name = "EgressRefused";
}

const systemResolve = async (hostname: string): Promise<string[]> =>
	(await lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface Target {
	url: URL;
	address: string;
	family: 4 | 6;
}

/**
 * Judge a URL and pick the address to connect to. `what` names the URL in errors
 * ("the avatar URL").
 */
export async function admit(input: string | URL, policy: EgressPolicy, what: string): Promise<Target> {
	let url: URL;
	try {
		url = new URL(input);
	} catch {
		throw new EgressRefused(`${what} is not a valid URL`);
	}
	const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
	const port = url.port || (url.protocol === "https:" ? "443" : "80");
	const excepted = (address: string) =>
		policy.exceptions?.has(address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`) ?? false;
	const byName = checkOutboundUrl(url, policy);
	if (!byName.ok) {
		const literalException = byName.reason !== "metadata" && isIpLiteral(host) && excepted(host);
		// A name the guard calls private (`whisper`, `stt.corp`) is judged by what it resolves to
		// below, so an operator's excepted address is reachable by its name too.
		const judgedByAddress = byName.reason === "private" && !isIpLiteral(host);
		if (!(literalException || judgedByAddress) || ["invalid_url", "scheme", "credentials"].includes(byName.reason))
			throw new EgressRefused(`${what} is refused: ${byName.detail}`);
	}
	let addresses: string[];
	if (isIpLiteral(host)) addresses = [host];
	else {
		try {
			addresses = await (policy.resolve ?? systemResolve)(host);
		} catch {
			throw new EgressRefused(`${what} does not resolve (${host})`);
		}
		if (addresses.length === 0) throw new EgressRefused(`${what} does not resolve (${host})`);
	}
	// Every address, not just the first: the connection must not be able to reach a refused one.
	for (const address of addresses) {
		const check = checkResolvedAddress(address, policy);
		if (check.ok) continue;
		if (check.reason !== "metadata" && excepted(address)) continue;
		throw new EgressRefused(`${what} resolves to a ${check.reason.replace("_", "-")} address`);
	}
	const address = addresses[0] as string;
	return { url, address, family: address.includes(":") ? 6 : 4 };
}

function isIpLiteral(host: string): boolean {
	return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

/** A `lookup` that answers with the judged address only, whatever name is asked for. */
export function pinnedLookup(target: Target): LookupFunction {
	return (_hostname, options, callback) => {
		if (options.all) callback(null, [{ address: target.address, family: target.family }]);
		else callback(null, target.address, target.family);
	};
}

export interface GuardedRequest {
	what: string;
	policy: EgressPolicy;
	maxBytes: number;
	timeoutMs: number;
	method?: string;
	headers?: Record<string, string>;
	body?: Buffer;
	/** Hops to follow; 0 makes a redirect an error, so credentials never travel on. */
	maxRedirects?: number;
	/** Hand a redirect back as the answer (Chromium then asks for the next hop itself). */
	passRedirects?: boolean;
}

export interface GuardedResponse {
	status: number;
	headers: IncomingMessage["headers"];
	body: Buffer;
}

/** One request through the guard, redirects followed hop by hop, the body capped. */
export async function requestGuarded(input: string, o: GuardedRequest): Promise<GuardedResponse> {
	const signal = AbortSignal.timeout(o.timeoutMs);
	let next = input;
	try {
		for (let hop = 0; ; hop++) {
			const target = await admit(next, o.policy, o.what);
			const res = await send(target, o, signal);
			const location = res.headers.location;
			if (!o.passRedirects && res.statusCode && res.statusCode >= 300 && res.statusCode < 400 && location) {
				res.resume();
				const max = o.maxRedirects ?? 5;
				if (hop >= max)
					throw new EgressRefused(max === 0 ? `${o.what} redirected, which is not followed` : `${o.what} redirected too often`);
				next = new URL(location, target.url).href;
				continue;
			}
			return { status: res.statusCode ?? 0, headers: res.headers, body: await readCapped(res, o) };
		}
	} catch (err) {
		if (signal.aborted && !(err instanceof EgressRefused)) throw new Error(`${o.what} timed out after ${o.timeoutMs / 1000} s`);
		throw err;
	}
}

/** GET a user's media: the body on a 2xx answer, a named error otherwise. */
export async function fetchGuarded(
	url: string,
	o: { what: string; policy: EgressPolicy; maxBytes: number; timeoutMs?: number },
): Promise<Buffer> {
	const res = await requestGuarded(url, { ...o, timeoutMs: o.timeoutMs ?? 20_000 });
	if (res.status < 200 || res.status >= 300) throw new Error(`${o.what} answered ${res.status}`);
	return res.body;
}

function send(target: Target, o: GuardedRequest, signal: AbortSignal): Promise<IncomingMessage> {
	const client = target.url.protocol === "https:" ? https : http;
	return new Promise((resolve, reject) => {
		const req = client.request(
			target.url,
			{
				method: o.method ?? "GET",
				headers: { ...o.headers, ...(o.body ? { "content-length": String(o.body.length) } : {}) },
				// The name stays in Host and SNI (certificates are checked against it); only the
				// address comes from our own resolution.
				lookup: pinnedLookup(target),
				signal,
			},
			resolve,
		);
		req.on("error", reject);
		req.end(o.body);
	});
}

async function readCapped(res: IncomingMessage, o: GuardedRequest): Promise<Buffer> {
	const tooBig = () => new EgressRefused(`the download of ${o.what} exceeded ${formatBytes(o.maxBytes)}`);
	const declared = Number(res.headers["content-length"] ?? Number.NaN);
	if (declared > o.maxBytes) {
		res.destroy();
		throw tooBig();
	}
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of res) {
		size += (chunk as Buffer).length;
		if (size > o.maxBytes) {
			res.destroy();
			throw tooBig();
		}
		chunks.push(chunk as Buffer);
	}
	return Buffer.concat(chunks);
}

export function formatBytes(n: number): string {
	return n % (1024 * 1024) === 0 ? `${n / (1024 * 1024)} MB` : n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
}

/** What the host allows itself to fetch for users, from its environment. */
export interface HostEgress {
	policy: EgressPolicy;
	/** Images, avatars and audio (BOT_DOWNLOAD_MAX_BYTES, default 8 MB). */
	maxBytes: number;
	/** Videos, and each response a shared page loads (BOT_VIDEO_MAX_BYTES, default 50 MB). */
	maxVideoBytes: number;
}

export function hostEgressFromEnv(env: Record<string, string | undefined>): HostEgress {
	const bytes = (name: string, fallback: number) => {
		const value = Number(env[name] ?? "");
		return Number.isSafeInteger(value) && value > 0 ? value : fallback;
	};
	const targets = (env.BOT_HOST_PRIVATE_TARGETS ?? "")
		.split(",")
		.map((t) => t.trim())
		.filter(Boolean);
	return {
		policy: { ...outboundPolicy(env), ...(targets.length > 0 ? { exceptions: new Set(targets) } : {}) },
		maxBytes: bytes("BOT_DOWNLOAD_MAX_BYTES", 8 * 1024 * 1024),
		maxVideoBytes: bytes("BOT_VIDEO_MAX_BYTES", 50 * 1024 * 1024),
	};
}
