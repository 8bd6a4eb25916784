import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { api, gateway } from "./client";

/** One response as a browser gets it: the status, headers and the body's bytes as sent (still compressed). */
interface Wire {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	/** Status line, headers and body as they crossed the connection (chunk framing left out). */
	bytes: number;
	body: Buffer;
}

/** A GET that accepts compression as Chromium does, counting bytes before any decoding. */
function fetchRaw(path: string): Promise<Wire> {
	return new Promise((resolve, reject) => {
		const req = request(`${gateway()}${path}`, { headers: { "Accept-Encoding": "gzip, deflate, br, zstd" } }, (res) => {
			const chunks: Buffer[] = [];
			res.on("data", (c: Buffer) => chunks.push(c));
			res.on("end", () => {
				const body = Buffer.concat(chunks);
				const head = `HTTP/1.1 ${res.statusCode} ${res.statusMessage}\r\n${res.rawHeaders
					.map((v, i) => (i % 2 === 0 ? `${v}: ` : `${v}\r\n`))
					.join("")}\r\n`;
				resolve({ status: res.statusCode ?? 0, headers: res.headers, bytes: Buffer.byteLength(head) + body.length, body });
			});
			res.on("error", reject);
		});
		req.on("error", reject);
		req.end();
	});
}

const text = async (path: string) => (await fetch(`${gateway()}${path}`)).text();

/** Same-origin files a document or a stylesheet pulls in on first load. */
function referencedFiles(html: string): string[] {
	const refs = [...html.matchAll(/<(?:script|link|img|source|audio|video)\b[^>]*?\b(?:src|href)="([^"]+)"/gi)].map((m) => m[1] ?? "");
	return refs.filter((r) => r.startsWith("/") && !r.startsWith("//"));
}

const cssUrls = (css: string) =>
	[...css.matchAll(/url\(\s*["']?([^"')]+)["']?\s*\)/g)].map((m) => m[1] ?? "").filter((u) => u.startsWith("/"));

function directives(csp: string): Map<string, string[]> {
	return new Map(
		csp
			.split(";")
			.map((d) => d.trim().split(/\s+/))
			.filter((d) => d[0])
			.map(([name, ...values]) => [name?.toLowerCase() ?? "", values]),
	);
}

describe("the dashboard, served at / by wrangler dev", () => {
	it("serves index.html with a strict CSP, nosniff and no framing", async () => {
		const res = await fetch(`${gateway()}/`);
		expect(res.status).toBe(200);
		expect(res.headers.get("content-type")).toMatch(/^text\/html/);
		expect(await res.text()).toContain('<div id="app">');

		const csp = res.headers.get("content-security-policy") ?? "";
		const policy = directives(csp);
		expect(policy.get("default-src")).toEqual(["'none'"]);
		expect(policy.get("script-src")).toEqual(["'self'"]);
		expect(policy.get("style-src")).toEqual(["'self'"]);
		expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
		expect(policy.get("connect-src")).toEqual(["'self'"]);
		expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
		expect(res.headers.get("x-frame-options")).toBe("DENY");
		expect(res.headers.get("referrer-policy")).toBe("no-referrer");
	});

	it("has no inline script, inline style or event handler attribute in index.html", async () => {
		const html = await text("/");
		const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
		expect(scripts.length).toBeGreaterThan(0);
		for (const [, attributes, body] of scripts) {
			expect(attributes).toMatch(/\bsrc="\/[^"]+"/);
			expect(body?.trim()).toBe("");
		}
		expect(html).not.toMatch(/<style\b/i);
		expect(html).not.toMatch(/\sstyle\s*=/i);
		expect(html).not.toMatch(/\son[a-z]+\s*=/i);
		expect(html).not.toMatch(/javascript:/i);
	});

	it("sends its files with their own types and the same headers", async () => {
		const html = await text("/");
		const files = referencedFiles(html);
		expect(files).toEqual(expect.arrayContaining(["/assets/app.js", "/assets/app.css"]));
		for (const file of files) {
			const res = await fetch(`${gateway()}${file}`);
			expect(res.status, file).toBe(200);
			if (file.endsWith(".js")) expect(res.headers.get("content-type")).toMatch(/^(text|application)\/javascript/);
			if (file.endsWith(".css")) expect(res.headers.get("content-type")).toMatch(/^text\/css/);
			expect(res.headers.get("x-content-type-options"), file).toBe("nosniff");
			expect(res.headers.get("content-security-policy"), file).toContain("script-src 'self'");
		}
	});

	it("loads in well under 200 KB on the wire: index.html and everything it references", async () => {
		const page = await fetchRaw("/");
		expect(page.status).toBe(200);
		const html = await text("/");
		const files = referencedFiles(html);
		const css = await Promise.all(files.filter((f) => f.endsWith(".css")).map(text));
		const all = [...new Set([...files, ...css.flatMap(cssUrls)])];
		const responses = await Promise.all(all.map(fetchRaw));
		for (const [i, r] of responses.entries()) expect(r.status, all[i]).toBe(200);
		const total = page.bytes + responses.reduce((sum, r) => sum + r.bytes, 0);
		const js = responses.find((_, i) => all[i] === "/assets/app.js");
		// Compressed when the browser asks: the bytes counted are the ones sent.
		expect(js?.headers["content-encoding"]).toMatch(/gzip|br|zstd/);
		console.info(`dashboard first load: ${total} bytes on the wire over ${all.length + 1} requests`);
		expect(total).toBeLessThan(100_000);
	});

	it("leaves every API path to the gateway", async () => {
		const health = await api("GET", "/health");
		expect(health.status).toBe(200);
		expect(health.body).toEqual({ status: "ok", service: "gateway", version: "0.12.27" });

		const openapi = await api<{ openapi: string; paths: Record<string, unknown> }>("GET", "/openapi.json");
		expect(openapi.status).toBe(200);
		expect(openapi.body.openapi).toMatch(/^3\./);
		expect(Object.keys(openapi.body.paths)).toContain("/auth/ticket");

		for (const path of ["/no-such-page", "/assets/no-such-file.js", "/meetings/1/nothing"]) {
			const res = await api("GET", path);
			expect(res.status, path).toBe(404);
			expect(res.headers.get("content-type"), path).toMatch(/^application\/json/);
			expect(res.body, path).toEqual({ detail: "Not Found" });
		}

		const me = await api("GET", "/auth/me");
		expect(me.status).toBe(401);
		expect(me.body).toEqual({ detail: "Missing API key" });
	});
});
