/**
 * The dashboard's Usage page (docs/dashboard.md#usage) in real headless Chromium against
 * `wrangler dev`: bots played over the real channel, one that ended and one still in its meeting,
 * caps the operator set through the admin API, and the page showing the gateway's figures, the
 * caps and how close the account is to them, each meeting linking to its page, a meeting's title
 * as text, and a range the API refuses with its words. The Meetings page's send form shows a
 * cap's refusal. Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fill, launchBrowser, openPage, type PageLog, press, screenshot, seeText, signIn, visibleText } from "./browser";
import { api, gateway, nativeId, newAccount } from "./client";
import { playedMeeting } from "./simulated-bot";

interface Report {
	totals: { meetings: number; bot_minutes: number; waiting_minutes: number };
	days: { day: string; meetings: number }[];
}

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const TITLE = 'Board <img src=x onerror="window.__pwned=1"> review';

/** The text of each cell of a row. */
const cells = (page: Page, selector: string) =>
	page.$$eval(`${selector} > *`, (nodes) => nodes.map((node) => (node.textContent ?? "").trim()));

describe("the Usage page", () => {
	let account: { key: string; userId: number };
	let page: Page;
	let log: PageLog;
	let ended: number;
	let running: number;

	beforeAll(async () => {
		account = await newAccount();
		// A titled plan its bot then joins (the title is a calendar's, so anyone's text).
		const code = nativeId("google_meet");
		const plan = await api("POST", "/meetings", {
			key: account.key,
			json: { title: TITLE, meeting_url: `https://meet.google.com/${code}` },
		});
		expect(plan.status).toBe(201);
		const first = await playedMeeting(account.key, { code, statuses: ["joining", "active"] });
		ended = first.meetingId;
		await new Promise((resolve) => setTimeout(resolve, 1500));
		await first.bot.send({ type: "status", status: "completed", completion_reason: "left_alone", timestamp: new Date().toISOString() });
		first.bot.channel.close();
		const second = await playedMeeting(account.key, { statuses: ["joining", "awaiting_admission", "active"] });
		running = second.meetingId;
		// Today's bot minutes are capped at 0 (reached), this month's at 600 (room left).
		const caps = await api("PATCH", `/admin/users/${account.userId}/usage-caps`, {
			admin: true,
			json: { bot_minutes_per_day: 0, bot_minutes_per_month: 600 },
		});
		expect(caps.status).toBe(200);
		({ page, log } = await openPage(browser, `${gateway()}/`));
		await signIn(page, account.key);
	});

	it("shows the caps, the totals, each day and each meeting as the API counts them", async () => {
		await page.click('nav a[href="#/usage"]');
		await seeText(page, "Per day (UTC)");
		expect(await page.$eval('nav a[href="#/usage"]', (a) => a.getAttribute("aria-current"))).toBe("page");
		await page.waitForSelector(`tr[data-meeting-id="${running}"]`);
		const report = (await api<Report>("GET", "/usage", { key: account.key })).body;
		expect(report.totals.meetings).toBe(2);

		// Caps: how close, and what the next bot meets.
		const day = await page.$eval('[data-cap="bot_minutes_per_day"]', (li) => ({
			reached: li.getAttribute("data-reached"),
			text: li.textContent,
		}));
		expect(day.reached).toBe("true");
		expect(day.text).toContain("Bot minutes today (UTC)");
		expect(day.text).toContain("Reached: new bots are refused until");
		const month = await page.$eval('[data-cap="bot_minutes_per_month"]', (li) => ({
			reached: li.getAttribute("data-reached"),
			text: li.textContent,
		}));
		expect(month.reached).toBe("false");
		expect(month.text).toMatch(/of 10 h \(\d+%\)/);
		expect(month.text).toContain("left; resets");
		expect(await page.$('[data-cap="storage_bytes"]')).toBeNull();
		expect(await page.$$eval("meter", (meters) => meters.length)).toBe(2);

		// Totals and today's row.
		expect(await page.$eval('[data-total="meetings"]', (dd) => dd.textContent)).toBe("2");
		expect(await page.$eval('[data-total="bot_minutes"]', (dd) => dd.textContent)).toMatch(/^\d+ s$|^[\d.]+ min$/);
		const today = new Date().toISOString().slice(0, 10);
		const todayRow = await cells(page, `tr[data-day="${today}"]`);
		expect(todayRow[0]).toBe(today);
		expect(todayRow[1]).toBe("2");

		// Meetings: newest first, each linking to its page, the running one counting, the title as text.
		const ids = await page.$$eval("table.usage-meetings tbody tr", (rows) => rows.map((r) => Number(r.getAttribute("data-meeting-id"))));
		expect(ids).toEqual([running, ended]);
		// The badge's words are the status's (ui/status-badge.tsx); the marker is this page's.
		expect((await cells(page, `tr[data-meeting-id="${running}"]`))[2]).toMatch(/ counting$/);
		expect((await cells(page, `tr[data-meeting-id="${ended}"]`))[2]).not.toContain("counting");
		const endedRow = await cells(page, `tr[data-meeting-id="${ended}"]`);
		expect(endedRow[0]).toContain(TITLE);
		expect(await page.$$eval("table.usage-meetings img", (imgs) => imgs.length)).toBe(0);
		expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
		await screenshot(page, "usage");

		await page.click(`tr[data-meeting-id="${ended}"] a[href="#/meetings/${ended}"]`);
		await page.waitForFunction((id: number) => location.hash === `#/meetings/${id}`, {}, ended);
		expect(log.errors).toEqual([]);
	});

	it("reads another range from the form, and shows the API's refusal of one that ends before it starts", async () => {
		await page.goto(`${gateway()}/#/usage`);
		await seeText(page, "Per day (UTC)");
		await fill(page, "From (UTC day)", "03/01/2025");
		await fill(page, "To (UTC day)", "03/02/2025");
		await press(page, "Show");
		await seeText(page, "No bot ran in a meeting in this range.");
		expect(await page.evaluate(() => location.hash)).toBe("#/usage?from=2025-03-01&to=2025-03-02");
		expect(await page.$$eval("table.usage-days tbody tr", (rows) => rows.map((r) => r.getAttribute("data-day")))).toEqual([
			"2025-03-01",
			"2025-03-02",
		]);

		await page.goto(`${gateway()}/#/usage?from=2025-03-05&to=2025-03-01`);
		await seeText(page, "to (2025-03-01) is before from (2025-03-05)");
		expect(await visibleText(page)).not.toContain("Internal server error");
	});

	it("shows a cap's refusal where a bot is sent", async () => {
		await page.goto(`${gateway()}/#/meetings`);
		await fill(page, "Meeting link", `https://meet.google.com/${nativeId("google_meet")}`);
		await press(page, "Send bot");
		await seeText(page, /The account's daily bot minutes cap is reached: [\d.]+ of 0 minutes used today \(UTC\)/);
	});
});
