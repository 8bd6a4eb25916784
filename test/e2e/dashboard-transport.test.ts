/**
 * The dashboard's calls go through the typed client's transport (dashboard/src/api.ts on `send`
 * of @meetbot/client), in real headless Chromium against the e2e stack: a key revoked while the
 * tab is signed in ends the session on the next call, with the API's own reason, and the key
 * leaves the tab's storage.
 */
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fill, launchBrowser, openPage, press, seeText, storage } from "./browser";
import { api, gateway, newAccount } from "./client";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

describe("the dashboard's transport", () => {
	it("signs out with the API's reason when the key is revoked mid-session", async () => {
		const { key, userId } = await newAccount();
		const { page, log } = await openPage(browser, `${gateway()}/`);
		try {
			await fill(page, "API key", key);
			await press(page, "Sign in");
			await seeText(page, "Your meetings");

			const tokens = await api<{ id: number }[]>("GET", `/admin/users/${userId}/tokens`, { admin: true });
			expect(tokens.body).toHaveLength(1);
			expect((await api("DELETE", `/admin/tokens/${tokens.body[0]?.id}`, { admin: true })).status).toBe(204);
			const refused = await api<{ detail: string }>("GET", "/auth/me", { key });
			expect(refused.status).toBe(401);

			// The next page's call is refused: the shell signs out with the gateway's sentence.
			await page.goto(`${gateway()}/#/settings`);
			await seeText(page, `Signed out: ${refused.body.detail}`);
			expect((await storage(page)).session).toEqual({});
			// Every call carried the key in its header, none in its address.
			const calls = log.requests.filter((r) => new URL(r.url).origin === gateway() && !r.url.includes("/assets/"));
			expect(calls.filter((r) => r.url.includes(key))).toEqual([]);
			expect(calls.filter((r) => r.headers["x-api-key"] === key).length).toBeGreaterThan(1);
		} finally {
			await page.close();
		}
	});
});
