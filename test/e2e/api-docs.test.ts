/**
 * `/docs`: Swagger UI rendering the gateway's own /openapi.json, served as static assets under the
 * dashboard's CSP, in real headless Chromium against `wrangler dev`.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openPage, type PageLog, screenshot, storage } from "./browser";
import { gateway, newAccount } from "./client";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** Opens `/docs` with every CSP violation the page reports recorded in `window.__cspViolations`. */
async function openDocs(path = "/docs"): Promise<{ page: Page; log: PageLog }> {
	const opened = await openPage(browser, "about:blank");
	await opened.page.evaluateOnNewDocument(() => {
		const seen: string[] = [];
		(window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
		document.addEventListener("securitypolicyviolation", (e) =>
			seen.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`),
		);
	});
	await opened.page.goto(`${gateway()}${path}`, { waitUntil: "networkidle0" });
	return opened;
}

const violations = (page: Page) => page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations);

const ME = "#operations-default-get_auth_me";

describe("the API reference at /docs", () => {
	it("answers /docs with a redirect to /docs/, which is the page under the dashboard's CSP, with no inline script or style", async () => {
		const bare = await fetch(`${gateway()}/docs`, { redirect: "manual" });
		expect(bare.status).toBe(307);
		expect(new URL(bare.headers.get("location") ?? "", gateway()).pathname).toBe("/docs/");
		const res = await fetch(`${gateway()}/docs/`);
		expect(res.status).toBe(200);
		const csp = res.headers.get("content-security-policy") ?? "";
		expect(csp).toContain("script-src 'self'");
		expect(csp).toContain("style-src 'self'");
		expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
		const html = await res.text();
		const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
		expect(scripts.map(([, attributes]) => attributes?.match(/src="([^"]+)"/)?.[1])).toEqual([
			"/docs/swagger-ui-bundle.js",
			"/docs/docs.js",
		]);
		for (const [, , body] of scripts) expect(body?.trim()).toBe("");
		expect(html).not.toMatch(/<style\b|\sstyle\s*=|\son[a-z]+\s*=|javascript:/i);
		// The renderer's licence travels with its files.
		expect((await fetch(`${gateway()}/docs/LICENSE`)).status).toBe(200);
	});

	it("renders every operation of /openapi.json with no CSP violation or console error, and reaches no other origin", async () => {
		const { page, log } = await openDocs();
		expect(new URL(page.url()).pathname).toBe("/docs/");
		await page.waitForSelector(".opblock", { timeout: 30_000 });
		const document = (await (await fetch(`${gateway()}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
		const operations = Object.values(document.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
		expect(await page.$$eval(".opblock", (blocks) => blocks.length)).toBe(operations);
		const shown = await page.$$eval(".opblock-summary-path", (paths) => paths.map((p) => p.getAttribute("data-path")));
		expect(shown).toEqual(expect.arrayContaining(["/auth/me", "/auth/keys", "/meetings", "/transcripts/{platform}/{native_meeting_id}"]));
		expect(await violations(page)).toEqual([]);
		expect(log.errors).toEqual([]);
		// data: URLs (the stylesheet's icons) are no request to anyone.
		const origins = new Set(log.requests.filter((r) => /^https?:/.test(r.url)).map((r) => new URL(r.url).origin));
		expect([...origins]).toEqual([new URL(gateway()).origin]);
		await screenshot(page, "api-docs", { fullPage: false });
		await page.close();
	});

	it("tries GET /auth/me with the key entered under Authorize: 200, the key in the X-API-Key header only, nothing stored", async () => {
		const account = await newAccount();
		const { page, log } = await openDocs("/docs/");
		await page.waitForSelector(ME, { timeout: 30_000 });
		await page.click(".auth-wrapper .authorize");
		await page.waitForSelector(".modal-ux .auth-container input");
		const schemes = await page.$$(".modal-ux .auth-container");
		const names = await Promise.all(schemes.map((s) => s.evaluate((e) => e.querySelector("h4")?.textContent ?? "")));
		const apiKey = schemes[names.findIndex((n) => n.includes("ApiKeyAuth") && !n.includes("Admin"))];
		if (!apiKey) throw new Error(`no ApiKeyAuth form among ${names.join(", ")}`);
		await (await apiKey.$("input"))?.type(account.key);
		await (await apiKey.$("button.authorize"))?.click();
		await page.click(".modal-ux button.btn-done");

		await page.click(`${ME} .opblock-summary`);
		await page.waitForSelector(`${ME} button.execute`);
		await page.click(`${ME} button.execute`);
		await page.waitForSelector(`${ME} .live-responses-table .response .response-col_status`, { timeout: 15_000 });
		expect(await page.$eval(`${ME} .live-responses-table .response .response-col_status`, (e) => e.textContent?.trim())).toBe("200");
		expect(await page.$eval(`${ME} .live-responses-table .response .response-col_description`, (e) => e.textContent)).toContain(
			account.email,
		);

		const calls = log.requests.filter((r) => new URL(r.url).pathname === "/auth/me");
		expect(calls).toHaveLength(1);
		expect(calls[0]?.headers["x-api-key"]).toBe(account.key);
		expect(calls[0]?.url).toBe(`${gateway()}/auth/me`);
		const leaks = [
			...log.requests.filter((r) => r.url.includes(account.key)).map((r) => r.url),
			...(page.url().includes(account.key) ? [page.url()] : []),
			...Object.entries(await storage(page).then((s) => ({ ...s.local, ...s.session })))
				.filter(([k, v]) => k.includes(account.key) || v.includes(account.key))
				.map(([k]) => `storage ${k}`),
		];
		expect(leaks).toEqual([]);
		// The document itself is fetched without the key: only operations that take one carry it.
		expect(log.requests.find((r) => new URL(r.url).pathname === "/openapi.json")?.headers["x-api-key"]).toBeUndefined();
		expect(await violations(page)).toEqual([]);
		expect(log.errors).toEqual([]);
		// Swagger UI's curl line shows the visitor their key; the saved artifact never holds it.
		await screenshot(page, "api-docs-try-it-out", { fullPage: false, hiding: [account.key] });

		// Reloading forgets the key: the next call goes without it and is refused.
		await page.reload({ waitUntil: "networkidle0" });
		await page.waitForSelector(ME, { timeout: 30_000 });
		// Deep linking reopens the operation the address names; open it only if it is not.
		if (!(await page.$(`${ME} button.execute`))) await page.click(`${ME} .opblock-summary`);
		await page.waitForSelector(`${ME} button.execute`);
		await page.click(`${ME} button.execute`);
		await page.waitForSelector(`${ME} .live-responses-table .response .response-col_status`, { timeout: 15_000 });
		expect(await page.$eval(`${ME} .live-responses-table .response .response-col_status`, (e) => e.textContent?.trim())).toMatch(/^401\b/);
		expect(log.requests.filter((r) => new URL(r.url).pathname === "/auth/me").at(-1)?.headers["x-api-key"]).toBeUndefined();
		await page.close();
	});
});
