/**
 * The Settings page in real headless Chromium against the e2e gateway and the local webhook
 * receiver: "Send a test webhook" sends one signed `webhook.test` (the receiver checks the
 * signature with the account's secret) and says what came of it; the API keys come before the
 * delivery history, which is paged.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../src/webhooks/signature";
import { eventually } from "../shared/wait";
import { launchBrowser, openPage, press, screenshot, seeText, signIn, visibleText } from "./browser";
import { api, gateway, newAccount, receivedAt, receiverUrl } from "./client";

const SECRET = "settings-test-secret-0123456789";

let browser: Browser;
let page: Page;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

describe("the settings page", () => {
	it("sends a signed test webhook and shows its result, keys above a paged delivery history", async () => {
		const account = await newAccount(gateway());
		const hookPath = `/hooks/settings-${crypto.randomUUID()}`;
		const saved = await api("PUT", "/user/webhook", {
			key: account.key,
			json: { webhook_url: `${receiverUrl()}${hookPath}`, webhook_secret: SECRET },
		});
		expect(saved.status).toBe(200);
		({ page } = await openPage(browser, `${gateway()}/`));
		await signIn(page, account.key);
		await page.goto(`${gateway()}/#/settings`);

		await press(page, "Send a test webhook");
		await seeText(page, /Test webhook delivered to 127\.0\.0\.1: HTTP 200 in \d+ ms\./);
		const [request, ...more] = await eventually("the test webhook at the receiver", async () => {
			const got = await receivedAt(hookPath);
			return got.length > 0 ? got : undefined;
		});
		expect(more).toHaveLength(0);
		expect(JSON.parse(request?.body ?? "{}")).toMatchObject({ event_type: "webhook.test", data: { user_id: account.userId } });
		expect(await verifyWebhook(SECRET, request?.headers ?? {}, request?.body ?? "", { toleranceSeconds: 120 })).toMatchObject({ ok: true });
		// The test is in the history at once, and the secret is nowhere on the page.
		await seeText(page, "webhook.test");
		expect(await visibleText(page)).not.toContain(SECRET);

		// The API keys come before the delivery history.
		const order = await page.$$eval(".settings-grid > section h2", (headings) => headings.map((h) => h.textContent?.trim()));
		expect(order.indexOf("API keys")).toBeGreaterThanOrEqual(0);
		expect(order.indexOf("API keys")).toBeLessThan(order.indexOf("Delivery history"));

		// 21 more tests fill more than one page of 20: Older, then Newer.
		for (let i = 0; i < 21; i++) expect((await api("POST", "/user/webhook/test", { key: account.key })).status).toBe(200);
		await press(page, "Refresh deliveries");
		await seeText(page, "Page 1");
		const rows = () => page.$$eval("table.deliveries tbody tr", (trs) => trs.length);
		await eventually("a full first page", async () => ((await rows()) === 20 ? true : undefined));
		await press(page, "Older deliveries");
		await seeText(page, "Page 2");
		await eventually("the second page's two rows", async () => ((await rows()) === 2 ? true : undefined));
		await screenshot(page, "settings-test-webhook");
		await press(page, "Newer deliveries");
		await seeText(page, "Page 1");

		// A receiver that refuses: the result says what it answered.
		await fetch(`${receiverUrl()}/__control/script?path=${encodeURIComponent(hookPath)}`, {
			method: "POST",
			body: JSON.stringify({ responses: [{ status: 503 }] }),
		});
		await press(page, "Send a test webhook");
		await seeText(page, /Test webhook to 127\.0\.0\.1 failed: it answered HTTP 503 in \d+ ms\./);
		await page.close();
	});
});
