/**
 * The dashboard shows what a stuck bot sees and what a failed bot saw last
 * (docs/dashboard.md#a-meeting), in real headless Chromium against the e2e stack, the bot
 * played over the real channel: the page's text as text, the screenshot only from the
 * gateway's signed link. Screenshots go to .local/artifacts/dashboard/.
 */
import { deflateSync } from "node:zlib";
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SpawnRequest } from "../../src/bot-channel/protocol";
import { launchBrowser, openPage, screenshot, seeText, signIn, visibleText } from "./browser";
import { gateway, newAccount } from "./client";
import { playedMeeting } from "./simulated-bot";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** CRC-32 of PNG chunks (ISO 3309). */
function crc32(bytes: Uint8Array): number {
	let crc = 0xffffffff;
	for (const byte of bytes) {
		crc ^= byte;
		for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
	}
	return (crc ^ 0xffffffff) >>> 0;
}

/** A real, decodable PNG of one colour: what a bot's screenshot is, small. */
function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
	const chunk = (type: string, data: Uint8Array) => {
		const out = Buffer.alloc(12 + data.length);
		out.writeUInt32BE(data.length, 0);
		out.write(type, 4, "ascii");
		Buffer.from(data).copy(out, 8);
		out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
		return out;
	};
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
	const pixels = deflateSync(Buffer.concat(Array.from({ length: height }, () => row)));
	const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	return Buffer.concat([signature, chunk("IHDR", header), chunk("IDAT", pixels), chunk("IEND", new Uint8Array(0))]);
}

async function upload(spawn: SpawnRequest, name: string, body: Buffer) {
	const res = await fetch(`${spawn.screenshot_upload_url}/${name}`, {
		method: "PUT",
		headers: { authorization: `Bearer ${spawn.channel.token}`, "content-type": "image/png" },
		body: Uint8Array.from(body),
	});
	expect(res.status, await res.clone().text()).toBe(201);
}

/** The screenshot in the panel once the browser has decoded it: its src and its size. */
async function shownScreenshot(page: Page, panel: string) {
	await page.waitForFunction(
		(sel: string) => {
			const img = document.querySelector<HTMLImageElement>(`${sel} img[data-testid="screenshot"]`);
			return Boolean(img?.complete && img.naturalWidth > 0);
		},
		{ timeout: 15_000 },
		panel,
	);
	return page.evaluate((sel: string) => {
		const img = document.querySelector<HTMLImageElement>(`${sel} img[data-testid="screenshot"]`);
		return { src: img?.getAttribute("src") ?? "", width: img?.naturalWidth ?? 0 };
	}, panel);
}

/** Elements and handlers that page text could only have made by being parsed as HTML. */
function injected(page: Page) {
	return page.evaluate(() => ({
		images: Array.from(document.querySelectorAll("img"))
			.filter((i) => i.dataset.testid !== "screenshot")
			.map((i) => i.outerHTML),
		handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on")))
			.length,
		bold: document.querySelectorAll("b").length,
	}));
}

describe("a bot that needs help, in the dashboard", () => {
	it("shows the stuck bot's reason, page text and screenshot, then the failed bot's steps and screenshot, all page text as text", async () => {
		const xss = "<img src=x onerror=alert(1)>";
		const { key } = await newAccount(gateway());
		const { meetingId, spawn, bot } = await playedMeeting(key, { statuses: ["joining"] });
		const now = () => new Date().toISOString();
		await upload(spawn, "help-1.png", solidPng(64, 40, [200, 30, 30]));
		await bot.send({
			type: "status",
			status: "needs_help",
			reason: `stuck on ${xss}`,
			help: { kind: "captcha", page_text: `Prove you are human\n${xss}\n<b>not bold</b>`, screenshot: "help-1.png" },
			timestamp: now(),
		});

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await seeText(page, "The bot needs help");
		await seeText(page, "Stuck on a captcha or bot check");
		await seeText(page, `stuck on ${xss}`);
		await seeText(page, xss);
		await seeText(page, "<b>not bold</b>");
		const stuck = await shownScreenshot(page, '[data-testid="help"]');
		expect(stuck.width).toBe(64);
		// Only the gateway's own signed route, on the page's own origin.
		expect(stuck.src).toMatch(new RegExp(`^/public/screenshots/${meetingId}/1/help-1\\.png\\?expires=\\d+&signature=[A-Za-z0-9_-]+$`));
		await screenshot(page, "needs-help");

		await upload(spawn, "failure.png", solidPng(48, 30, [30, 30, 200]));
		await bot.send({
			type: "status",
			status: "failed",
			failure_stage: "joining",
			reason: "gave up",
			diagnostics: {
				steps: [
					{ at: now(), step: "opened the join page" },
					{ at: now(), step: `saw ${xss}` },
				],
				page_state: "unknown",
				page_text: `Still there\n${xss}`,
				screenshot: "failure.png",
			},
			timestamp: now(),
		});
		await seeText(page, "What the bot saw last");
		await seeText(page, "opened the join page");
		await seeText(page, `saw ${xss}`);
		const failed = await shownScreenshot(page, '[data-testid="diagnostics"]');
		expect(failed.width).toBe(48);
		expect(failed.src).toMatch(new RegExp(`^/public/screenshots/${meetingId}/1/failure\\.png\\?`));
		await screenshot(page, "failure-diagnostics");

		expect(await injected(page)).toEqual({ images: [], handlers: 0, bold: 0 });
		expect(log.dialogs).toEqual([]);
		expect(log.requests.filter((r) => new URL(r.url).pathname === "/x")).toEqual([]);
		await page.close();
	});

	it("shows a bot that cannot read captions as in the call and recording, with what it sees, until it reads one again", async () => {
		const { key } = await newAccount(gateway());
		const { meetingId, spawn, bot } = await playedMeeting(key, { statuses: ["joining", "active"] });
		await upload(spawn, "help-1.png", solidPng(80, 50, [30, 160, 60]));
		await bot.send({
			type: "status",
			status: "needs_help",
			reason: "people have been heard talking for 12 s, but the bot has read no caption for 30 s",
			help: { kind: "captions_unreadable", page_text: "Ana: good morning everyone", screenshot: "help-1.png" },
			timestamp: new Date().toISOString(),
		});

		const { page } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await seeText(page, "The bot needs help");
		await seeText(page, "people talk but the bot can read no captions");
		await seeText(page, "The bot stays in the call and keeps recording");
		await seeText(page, "The bot is in the call and still records, but it can read no captions while people talk");
		await seeText(page, "people have been heard talking for 12 s, but the bot has read no caption for 30 s");
		await seeText(page, "Ana: good morning everyone");
		expect((await shownScreenshot(page, '[data-testid="help"]')).width).toBe(80);
		expect(await visibleText(page)).not.toContain("Stuck on");
		await screenshot(page, "captions-unreadable");

		await bot.send({ type: "status", status: "active", reason: "a caption was read again", timestamp: new Date().toISOString() });
		await page.waitForFunction(() => !document.querySelector('[data-testid="help"]'), { timeout: 15_000 });
		expect(await visibleText(page)).not.toContain("can read no captions");
		await page.close();
	});
});
