/**
 * The settings page's API keys section (dashboard/src/settings/keys-section.tsx) and the nav link to
 * /docs, in real headless Chromium against `wrangler dev`. Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { fill, launchBrowser, openPage, type PageLog, press, screenshot, seeText, signIn, storage, tick, visibleText } from "./browser";
import { api, gateway, newAccount } from "./client";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
	await browser.defaultBrowserContext().overridePermissions(gateway(), ["clipboard-read", "clipboard-write", "clipboard-sanitized-write"]);
});

afterAll(async () => {
	await browser?.close();
});

interface ListedKey {
	id: number;
	name: string | null;
	scopes: string[];
	key_hint: string | null;
	expires_at: string | null;
	current: boolean;
}

const keysOf = async (key: string) => (await api<{ keys: ListedKey[] }>("GET", "/auth/keys", { key })).body.keys;

/** The labels of the scope checkboxes the mint form offers. */
const scopeChoices = (page: Page) =>
	page.$$eval(".mint-key fieldset .field-check label", (labels) => labels.map((l) => l.textContent?.split(":")[0] ?? ""));

describe("API keys in the settings page", () => {
	let account: { key: string; userId: number; email: string };
	let page: Page;
	let log: PageLog;

	beforeAll(async () => {
		account = await newAccount();
		({ page, log } = await openPage(browser, `${gateway()}/`));
		await signIn(page, account.key);
		await page.goto(`${gateway()}/#/settings`);
		await seeText(page, "API keys");
	});

	it("lists the keys masked, marking the one signed in, and offers only this key's scopes", async () => {
		const [current] = await keysOf(account.key);
		await seeText(page, "(this key)");
		await seeText(page, current?.key_hint ?? "no hint");
		expect(current?.key_hint).toBe(`****${account.key.slice(-4)}`);
		expect(await visibleText(page)).not.toContain(account.key);
		expect(await scopeChoices(page)).toEqual(["bot", "tx"]);
	});

	it("mints a tx key with a name and an expiry, shows it once with a copy button, and the key works", async () => {
		await fill(page, "Key name", "nightly export");
		await tick(page, "bot:", false);
		await page.select(".mint-key select", "30");
		await press(page, "Create key");
		await seeText(page, "Your new key");
		const token = await page.$eval(".minted-key input", (input) => (input as HTMLInputElement).value);
		expect(token).toMatch(/^vxa_tx_[A-Za-z0-9_-]{43}$/);
		await press(page, "Copy key");
		await seeText(page, "Copied to the clipboard.");
		expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
		await screenshot(page, "settings-keys-minted", { hiding: [token] });

		const me = await api<{ scopes: string[]; user_id: number }>("GET", "/auth/me", { key: token });
		expect(me.status).toBe(200);
		expect(me.body).toMatchObject({ user_id: account.userId, scopes: ["tx"] });
		const listed = (await keysOf(account.key)).find((k) => k.name === "nightly export");
		expect(listed).toMatchObject({ scopes: ["tx"], key_hint: `****${token.slice(-4)}`, current: false });
		expect(Date.parse(listed?.expires_at ?? "") - Date.now()).toBeGreaterThan(29 * 86_400_000);

		await seeText(page, "nightly export");
		await press(page, "Done");
		await eventually("the new key to leave the page", async () => ((await visibleText(page)).includes("Your new key") ? undefined : true));
		expect(await page.$$eval(".minted-key input", (inputs) => inputs.length)).toBe(0);
		// The key never went into a URL or storage.
		expect(log.requests.filter((r) => r.url.includes(token))).toEqual([]);
		const { local, session } = await storage(page);
		expect(JSON.stringify({ local, session })).not.toContain(token);
	});

	it("revokes a key after a confirmation: it gets 401 at once and leaves the list", async () => {
		const minted = (await keysOf(account.key)).find((k) => k.name === "nightly export");
		if (!minted?.key_hint) throw new Error("the minted key is not listed");
		await press(page, `Revoke key ${minted.key_hint}`);
		await seeText(page, "It stops working at once.");
		await press(page, "Cancel");
		expect((await keysOf(account.key)).map((k) => k.id)).toContain(minted.id);

		await press(page, `Revoke key ${minted.key_hint}`);
		await press(page, "Yes, revoke it");
		await seeText(page, "Key nightly export revoked.");
		expect((await keysOf(account.key)).map((k) => k.id)).not.toContain(minted.id);
		await eventually("the row to go", async () => ((await page.$(`tr[data-key-id="${minted.id}"]`)) ? undefined : true));
		await screenshot(page, "settings-keys");
	});

	it("links to the API reference from the navigation", async () => {
		const href = await page.$eval("nav.site-nav a[href='/docs/']", (a) => a.textContent);
		expect(href).toBe("API reference");
		await Promise.all([page.waitForNavigation(), page.click("nav.site-nav a[href='/docs/']")]);
		expect(new URL(page.url()).pathname).toBe("/docs/");
		await page.waitForSelector(".opblock", { timeout: 30_000 });
		await page.goto(`${gateway()}/#/settings`);
		await seeText(page, "(this key)");
	});

	it("revoking the key signed in with signs the tab out", async () => {
		const [current] = (await keysOf(account.key)).filter((k) => k.current);
		await press(page, `Revoke key ${current?.key_hint}`);
		await seeText(page, "It is the key you are signed in with: you will be signed out.");
		await press(page, "Yes, revoke it");
		await seeText(page, "Signed out: Invalid API key");
		expect((await api("GET", "/auth/me", { key: account.key })).status).toBe(401);
		expect((await storage(page)).session).toEqual({});
	});

	it("offers a tx key only tx for new keys", async () => {
		const minted = await api<{ token: string }>("POST", `/admin/users/${account.userId}/tokens?scopes=tx`, { admin: true });
		await signIn(page, minted.body.token);
		await page.goto(`${gateway()}/#/settings`);
		await seeText(page, "(this key)");
		expect(await scopeChoices(page)).toEqual(["tx"]);
		await page.close();
	});
});

describe("a key minted from an expiring key", () => {
	it("is offered, and gets, the signed-in key's own expiry rather than none", async () => {
		const { key } = await newAccount();
		const expiring = await api<{ token: string; expires_at: string }>("POST", "/auth/keys", { key, json: { expires_in_days: 30 } });
		expect(expiring.status).toBe(201);
		const { page } = await openPage(browser, `${gateway()}/`);
		await signIn(page, expiring.body.token);
		await page.goto(`${gateway()}/#/settings`);
		await seeText(page, "When this key expires");
		await press(page, "Create key");
		await seeText(page, "Your new key");
		const minted = await page.$eval(".minted-key input", (input) => (input as HTMLInputElement).value);
		const listed = await keysOf(expiring.body.token);
		expect(listed.find((k) => k.key_hint === `****${minted.slice(-4)}`)?.expires_at).toBe(expiring.body.expires_at);
		await page.close();
	});
});
