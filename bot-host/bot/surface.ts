/**
 * The page that renders shared `url` and `html` content for the bot's camera. Its content is
 * untrusted: it must not reach anything the bot host can reach on its network.
 *
 * - Every request the page makes (documents, frames, subresources, each redirect hop) is
 *   intercepted and fetched by Node through the egress guard, pinned to the address it judged;
 *   Chromium itself never connects, so a DNS answer cannot change between check and use.
 * - data:, blob: and about: need no network and pass; every other scheme is refused.
 * - What interception cannot see, WebSockets and workers (their requests are not the page's),
 *   is switched off by a Content-Security-Policy added to every response the page gets:
 *   `connect-src http: https:` leaves fetch and XHR (intercepted) but matches no ws:/wss: URL,
 *   `worker-src 'none'`, and `sandbox` without popups (a new window would not be intercepted).
 *   Frames created empty inherit it.
 * - `html` is served as the document of a name that resolves nowhere, so it gets the same
 *   policy, and its relative URLs lead nowhere.
 * - UDP to an address the page names, which neither interception nor the policy sees, is taken
 *   away in this page only: WebRTC (STUN/TURN to internal addresses, ICE candidates that show
 *   the host's addresses) and WebTransport (QUIC) are removed from every document it creates,
 *   frames included, before their scripts run. The bot's meeting page keeps WebRTC: a meeting
 *   needs it, so no browser-wide switch (--force-webrtc-ip-handling-policy) is used.
 * - Storage: the page keeps its origin (`allow-same-origin`: sites break without localStorage),
 *   so it can write to the bot's profile on disk. Every origin a top-level document of the page
 *   comes from gets a storage quota of SURFACE_STORAGE_QUOTA_BYTES (IndexedDB, CacheStorage, the
 *   origin's file system) before that document loads: past it the page's writes fail with
 *   QuotaExceededError, as on a full disk. Chromium keys a frame's storage by the top-level site
 *   too, and a quota override names an origin alone, so it would not reach a frame of another
 *   origin: such frames (and every frame below one) are sandboxed without `allow-same-origin`,
 *   an opaque origin with no storage at all. Frames of the top document's own origin keep theirs,
 *   under its quota. What no quota covers (localStorage's own 10 MB per origin, one top-level
 *   origin after another) meets the profile's disk limit (profile-watch.ts), which stops the bot.
 */
import type { Browser, CDPSession, HTTPRequest, Page } from "puppeteer-core";
import { errorText } from "../error-text.ts";
import { admit, EgressRefused, type HostEgress, requestGuarded } from "./egress.ts";

export interface SharedSurface {
	page: Page;
	close(): Promise<void>;
}

const HTML_DOCUMENT_URL = "http://shared-content.invalid/";
/** The storage one origin of shared content may take: room for a web app's state, not for a disk's worth of blobs. */
export const SURFACE_STORAGE_QUOTA_BYTES = 16 * 1024 * 1024;
// `sandbox` without allow-popups: a window the page opens would be a page without interception.
const SURFACE_POLICY = "connect-src http: https: data: blob:; worker-src 'none'; sandbox allow-scripts allow-same-origin allow-forms";
/** The same for a frame whose storage no quota reaches: an opaque origin, which has none. */
const OPAQUE_FRAME_POLICY = "connect-src http: https: data: blob:; worker-src 'none'; sandbox allow-scripts allow-forms";
const PASSING_SCHEMES = new Set(["data:", "blob:", "about:"]);
// Hop-by-hop and encoding headers: Node hands us the body as sent, and Chromium gets it whole.
const DROPPED_RESPONSE_HEADERS = new Set(["content-encoding", "transfer-encoding", "content-length", "connection", "keep-alive"]);

export async function openSurface(
	browser: Browser,
	content: { kind: "url"; url: string } | { kind: "html"; html: string },
	egress: HostEgress,
	log: (line: string) => void,
): Promise<SharedSurface> {
	// A named refusal for the shared URL itself, before Chromium is involved.
	if (content.kind === "url") await admit(content.url, egress.policy, "the shared URL");
	// Its own window, so it keeps painting while the meeting tab is in front.
	const page = await browser.newPage({ type: "window", windowBounds: { width: 1920, height: 1080 } });
	const close = () => page.close().catch(() => {});
	try {
		await page.setViewport({ width: 1920, height: 1080 });
		await page.evaluateOnNewDocument(withoutUdp);
		const quota = new OriginQuota(await page.createCDPSession());
		await page.setRequestInterception(true);
		page.on("request", (request) => {
			const own = content.kind === "html" && request.url().startsWith(HTML_DOCUMENT_URL);
			const answered = !own
				? answer(request, egress, log, quota)
				: request.url() === HTML_DOCUMENT_URL
					? request.respond({
							status: 200,
							headers: { "content-security-policy": SURFACE_POLICY },
							contentType: "text/html; charset=utf-8",
							body: content.html,
						})
					: request.respond({ status: 404, headers: { "content-security-policy": OPAQUE_FRAME_POLICY }, body: "" });
			answered.catch((err: unknown) => log(`shared content: ${errorText(err)}`));
		});
		if (content.kind === "html") await quota.cap(HTML_DOCUMENT_URL);
		await page.goto(content.kind === "html" ? HTML_DOCUMENT_URL : content.url, { waitUntil: "load", timeout: 20_000 });
		return { page, close };
	} catch (err) {
		await close();
		throw err;
	}
}

/** Runs in each of the page's documents first: the constructors that open UDP go (Puppeteer serializes it, so it is self-contained). */
function withoutUdp(): void {
	for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "WebTransport"]) Reflect.deleteProperty(globalThis, name);
}

/** Storage quotas of the page's origins, through its own DevTools session (an override lasts as long as the session, which closes with the page). */
class OriginQuota {
	private readonly capped = new Set<string>();
	private readonly cdp: CDPSession;

	constructor(cdp: CDPSession) {
		this.cdp = cdp;
	}

	async cap(url: string): Promise<void> {
		const origin = originOf(url);
		if (origin === null || this.capped.has(origin)) return;
		await this.cdp.send("Storage.overrideQuotaForOrigin", { origin, quotaSize: SURFACE_STORAGE_QUOTA_BYTES });
		this.capped.add(origin);
	}
}

async function answer(request: HTTPRequest, egress: HostEgress, log: (line: string) => void, quota: OriginQuota): Promise<void> {
	const url = request.url();
	const scheme = url.slice(0, url.indexOf(":") + 1).toLowerCase();
	if (PASSING_SCHEMES.has(scheme)) return request.continue();
	try {
		// Before the document exists, so its first script already writes under the quota.
		const keepsOrigin = request.isNavigationRequest() && storesUnderQuota(request);
		if (keepsOrigin) await quota.cap(url);
		const res = await requestGuarded(url, {
			what: "a shared-content request",
			policy: egress.policy,
			maxBytes: egress.maxVideoBytes,
			timeoutMs: 20_000,
			method: request.method(),
			headers: forwardedHeaders(request.headers()),
			body: request.postData() === undefined ? undefined : Buffer.from(request.postData() ?? ""),
			passRedirects: true,
		});
		const headers: Record<string, string | string[]> = {};
		for (const [name, value] of Object.entries(res.headers))
			if (value !== undefined && !DROPPED_RESPONSE_HEADERS.has(name)) headers[name] = value;
		// Added to the site's own policy (both apply), never instead of it.
		const own = headers["content-security-policy"];
		const policy = !request.isNavigationRequest() || keepsOrigin ? SURFACE_POLICY : OPAQUE_FRAME_POLICY;
		headers["content-security-policy"] = [...(own === undefined ? [] : [own].flat()), policy].join(", ");
		await request.respond({ status: res.status, headers, body: res.body });
	} catch (err) {
		log(`shared content: blocked ${describeTarget(url)}: ${errorText(err)}`);
		await request.abort(err instanceof EgressRefused ? "blockedbyclient" : "failed");
	}
}

/**
 * Whether a document keeps its origin: the top-level one, and a frame of the top document's
 * origin all of whose ancestors are too (a frame of that origin below another origin's is stored
 * under a third-party key as well). A frame Chromium has not named yet counts as another origin.
 */
function storesUnderQuota(request: HTTPRequest): boolean {
	const frame = request.frame();
	if (!frame) return false;
	const top = frame.page().mainFrame();
	if (frame === top) return true;
	const origin = originOf(top.url());
	if (origin === null || originOf(request.url()) !== origin) return false;
	for (let ancestor = frame.parentFrame(); ancestor && ancestor !== top; ancestor = ancestor.parentFrame())
		if (originOf(ancestor.url()) !== origin) return false;
	return true;
}

function originOf(url: string): string | null {
	try {
		const origin = new URL(url).origin;
		return origin === "null" ? null : origin;
	} catch {
		return null;
	}
}

/** What Chromium would have sent, minus what only makes sense on its own connection. */
function forwardedHeaders(given: Record<string, string>): Record<string, string> {
	const headers: Record<string, string> = {};
	for (const [name, value] of Object.entries(given)) {
		const lower = name.toLowerCase();
		if (lower === "host" || lower === "connection" || lower === "accept-encoding" || lower.startsWith("proxy-")) continue;
		headers[lower] = value;
	}
	return headers;
}

/** Scheme, host and port only: paths and queries of user content stay out of the log. */
function describeTarget(url: string): string {
	try {
		const u = new URL(url);
		return u.host ? `${u.protocol}//${u.host}` : u.protocol;
	} catch {
		return "an invalid URL";
	}
}
