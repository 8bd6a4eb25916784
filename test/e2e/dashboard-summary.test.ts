/**
 * A completed meeting's summary at the top of its page (docs/dashboard.md#a-meeting), in real
 * headless Chromium against the e2e stack: the bot played over the real channel, the summary
 * made by the scripted OpenAI-compatible model server. "Summarizing…" while the model works,
 * then the summary, decisions and action items with owners, everything the model wrote as
 * text; without a model, how to turn summaries on. Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectedMarkup, launchBrowser, openPage, press, screenshot, seeText, signIn } from "./browser";
import { api, gateway, nativeId, newAccount } from "./client";
import { modelRequests, modelServer, script } from "./model-script";
import { meetingSaying } from "./simulated-bot";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const XSS = "<img src=x onerror=alert(1)>";
const now = () => new Date().toISOString();

async function signedIn(key: string, meetingId: number) {
	const opened = await openPage(browser, `${gateway()}/`);
	await signIn(opened.page, key);
	await opened.page.goto(`${gateway()}/#/meetings/${meetingId}`);
	return opened;
}

describe("a meeting's summary in the dashboard", () => {
	it("shows Summarizing… on completion, then the summary, decisions and action items with owners, all as text", async () => {
		const { key } = await newAccount(gateway());
		const models = await api("PUT", "/user/models", {
			key,
			json: { base_url: `${modelServer()}/v1`, model: "e2e-summary-model", api_key: "e2e-model-key-0123" },
		});
		expect(models.status).toBe(200);
		const code = nativeId("google_meet");
		const owner = `Eve ${XSS}`;
		const reply = JSON.stringify({
			summary: `Launch review.\n${XSS} <b>not bold</b>`,
			decisions: [`Ship on Friday ${XSS}`],
			action_items: [
				{ text: `Write the notes <b>now</b>`, owner },
				{ text: "Book a room", owner: "Nobody Named" },
			],
		});
		// A slow model: the page shows the wait before the summary.
		await script(code, [{ text: [reply.slice(0, 40), reply.slice(40, 120), reply.slice(120)], delay_ms: 1500 }]);
		const { meetingId, bot } = await meetingSaying(
			key,
			[
				["Alice", "We ship on Friday."],
				[owner, "I will write the notes."],
			],
			code,
		);

		const { page, log } = await signedIn(key, meetingId);
		await seeText(page, "Stop the bot");
		await bot.send({ type: "status", status: "completed", completion_reason: "left_alone", timestamp: now() });
		await seeText(page, "Summarizing…");
		await screenshot(page, "summary-pending");

		await seeText(page, "Launch review.", 30_000);
		const shown = await page.evaluate(() => {
			const panel = document.querySelector('[data-testid="meeting-summary"]');
			const items = (sel: string) => Array.from(panel?.querySelectorAll(`${sel} li`) ?? []).map((li) => li.textContent ?? "");
			return {
				status: panel?.getAttribute("data-status"),
				text: panel?.querySelector('[data-testid="summary-text"]')?.textContent,
				decisions: items('[data-testid="summary-decisions"]'),
				actions: items('[data-testid="summary-actions"]'),
				// The summary sits at the top: before the transcript.
				beforeTranscript: Boolean(
					panel &&
						document.querySelector("#transcript-heading") &&
						panel.compareDocumentPosition(document.querySelector("#transcript-heading") as Node) & Node.DOCUMENT_POSITION_FOLLOWING,
				),
			};
		});
		expect(shown).toEqual({
			status: "ready",
			text: `Launch review.\n${XSS} <b>not bold</b>`,
			decisions: [`Ship on Friday ${XSS}`],
			actions: [`Write the notes <b>now</b> (${owner})`, "Book a room"],
			beforeTranscript: true,
		});
		await screenshot(page, "summary-ready");

		expect(await injectedMarkup(page)).toEqual({ images: 0, handlers: 0, bold: 0 });
		expect(log.dialogs).toEqual([]);
		expect(log.requests.filter((r) => new URL(r.url).pathname === "/x")).toEqual([]);
		expect(await modelRequests(code)).toHaveLength(1);
		await page.close();
	});

	it("without a model, says there is no summary, refuses to summarize until a model is set, then summarizes when asked", async () => {
		const { key } = await newAccount(gateway());
		const code = nativeId("google_meet");
		const { meetingId, bot } = await meetingSaying(key, [["Alice", "A meeting nobody summarizes."]], code);
		await bot.send({ type: "status", status: "completed", completion_reason: "left_alone", timestamp: now() });

		const { page } = await signedIn(key, meetingId);
		await seeText(page, "No summary: no model was configured when this meeting ended.");
		await screenshot(page, "summary-no-model");
		await page.locator('::-p-aria([name="Settings → Model"][role="link"])').setTimeout(15_000).click();
		await page.waitForFunction(() => location.hash === "#/settings" && document.querySelector("#models-heading") !== null, {
			timeout: 15_000,
		});
		expect(await modelRequests(code)).toHaveLength(0);

		// Asked with no model: the API's refusal is shown, and nothing is called.
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await press(page, "Summarize now");
		await seeText(page, "No model is configured: set one under Settings → Model");
		expect(await modelRequests(code)).toHaveLength(0);

		const models = await api("PUT", "/user/models", {
			key,
			json: { base_url: `${modelServer()}/v1`, model: "e2e-summary-model", api_key: "e2e-model-key-0123" },
		});
		expect(models.status).toBe(200);
		await script(code, [{ text: [JSON.stringify({ summary: "Summarized on request.", decisions: [], action_items: [] })] }]);
		await press(page, "Summarize now");
		await seeText(page, "Summarized on request.");
		expect(await modelRequests(code)).toHaveLength(1);
		await page.close();
	});
});
