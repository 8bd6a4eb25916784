/**
 * Transcript downloads and meeting names in real headless Chromium against the e2e stack: the
 * downloads fetch the API's export at the click (so a page opened while the meeting was
 * joining saves it completed, with its times), and every meeting is named by its title or a
 * platform-and-code label, never a record id. Downloads land in a temporary folder through
 * Chromium's own download behaviour.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { launchBrowser, openPage, press, screenshot, seeText, signIn } from "./browser";
import { api, gateway, nativeId, newAccount } from "./client";
import { playedMeeting } from "./simulated-bot";

let browser: Browser;
let downloads: string;

beforeAll(async () => {
	browser = await launchBrowser();
	downloads = mkdtempSync(path.join(os.tmpdir(), "meetbot-downloads-"));
	const cdp = await browser.target().createCDPSession();
	await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads });
});

afterAll(async () => {
	await browser?.close();
	rmSync(downloads, { recursive: true, force: true });
});

/** The text of a file Chromium finished saving under `name`. */
function downloaded(name: string): Promise<string> {
	return eventually(
		`the download ${name}`,
		() => (readdirSync(downloads).includes(name) ? readFileSync(path.join(downloads, name), "utf8") : undefined),
		15_000,
	);
}

const now = () => new Date().toISOString();

describe("transcript downloads", () => {
	it("carry the meeting's status and times at the click, not as they were when the page opened", async () => {
		const { key } = await newAccount(gateway());
		const { meetingId, code, bot } = await playedMeeting(key, { statuses: ["joining"] });

		// The page opens while the bot is still joining: no start time yet.
		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await page.waitForSelector(".meeting-header .status-badge[data-status='joining']");

		await bot.send({ type: "status", status: "active", timestamp: now() });
		const segment = (segment_id: string, speaker: string, text: string, start: number, end: number) => ({
			type: "segment",
			segment: { segment_id, speaker, speaker_source: "caption", text, start, end, language: "en", completed: true },
		});
		await bot.send(segment("e-2", "Bruno <Diaz>", "Ship it --> now & later.", 3725.5, 3727));
		await bot.send(segment("e-1", "Alice", "Welcome, all.", 2, 4.25));
		await seeText(page, "Ship it --> now & later.");
		expect((await api("DELETE", `/bots/google_meet/${code}`, { key })).status).toBe(204);
		await bot.channel.waitFor("leave", (m) => m.type === "command");
		await bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: now() });
		const ended = (await api("GET", `/meetings/${meetingId}`, { key })).body as { status: string; start_time: string; end_time: string };
		expect(ended.status).toBe("completed");
		expect(ended.start_time).toBeTruthy();
		expect(ended.end_time).toBeTruthy();

		await press(page, "Download .txt");
		const text = await downloaded(`transcript-Google_Meet_${code}.txt`);
		expect(text.split("\n")).toEqual([
			`Meeting: Google Meet ${code}`,
			"Platform: google_meet",
			`Meeting ID: ${code}`,
			"Status: completed",
			`Started: ${ended.start_time}`,
			`Ended: ${ended.end_time}`,
			"",
			"[00:00:02] Alice: Welcome, all.",
			"[01:02:05] Bruno <Diaz>: Ship it --> now & later.",
			"",
		]);

		await press(page, "Download .json");
		const file = JSON.parse(await downloaded(`transcript-Google_Meet_${code}.json`));
		expect(file).toMatchObject({ id: meetingId, status: "completed", start_time: ended.start_time, end_time: ended.end_time, title: null });

		await press(page, "Download .srt");
		expect(await downloaded(`transcript-Google_Meet_${code}.srt`)).toBe(
			"1\n00:00:02,000 --> 00:00:04,250\nAlice: Welcome, all.\n\n2\n01:02:05,500 --> 01:02:07,000\nBruno ‹Diaz›: Ship it --› now & later.\n",
		);

		await press(page, "Download .vtt");
		expect(await downloaded(`transcript-Google_Meet_${code}.vtt`)).toBe(
			"WEBVTT\n\n1\n00:00:02.000 --> 00:00:04.250\n<v Alice>Welcome, all.\n\n2\n01:02:05.500 --> 01:02:07.000\n<v Bruno &lt;Diaz&gt;>Ship it --&gt; now &amp; later.\n",
		);

		// Each file came from the API, with the key in the header and never in the address.
		const exports = log.requests.filter((r) => new URL(r.url).search.startsWith("?format="));
		expect(exports.map((r) => new URL(r.url).search)).toEqual(["?format=txt", "?format=json", "?format=srt", "?format=vtt"]);
		for (const r of exports) {
			expect(r.headers["x-api-key"]).toBe(key);
			expect(r.url).not.toContain(key);
		}
		await screenshot(page, "transcript-downloads");
		await page.close();
	});
});

describe("a refused download", () => {
	it("says the API's reason on the page, saves nothing and keeps the tab signed in", async () => {
		const owner = await newAccount(gateway());
		const member = await newAccount(gateway());
		const code = nativeId("google_meet");
		const workspace = `exports-${code}`;
		for (const who of [owner, member]) {
			expect((await api("PUT", `/admin/workspaces/${workspace}/members/${who.userId}`, { admin: true })).status).toBe(204);
		}
		const plan = await api("POST", "/meetings", {
			key: owner.key,
			json: { meeting_url: `https://meet.google.com/${code}`, workspace_id: workspace },
		});
		expect(plan.status).toBe(201);
		const { meetingId } = await playedMeeting(owner.key, { code });

		// The member opens the shared meeting, then leaves the workspace before downloading.
		const { page } = await openPage(browser, `${gateway()}/`);
		await signIn(page, member.key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await page.waitForSelector(".downloads button:not([disabled])");
		expect((await api("DELETE", `/admin/workspaces/${workspace}/members/${member.userId}`, { admin: true })).status).toBe(204);
		const refused = await api<{ detail: string }>("GET", `/transcripts/google_meet/${code}?format=txt`, { key: member.key });
		expect(refused.status).toBe(404);

		await press(page, "Download .txt");
		await seeText(page, refused.body.detail);
		expect(readdirSync(downloads).filter((name) => name.includes(code))).toEqual([]);
		expect(await page.evaluate(() => sessionStorage.getItem("meetbot.key"))).toBe(member.key);
		await page.close();
	});
});

describe("meeting names", () => {
	it("the meetings list and a meeting's heading name meetings by title or platform and code, never a record id", async () => {
		const { key } = await newAccount(gateway());
		const titled = nativeId("google_meet");
		const plain = nativeId("google_meet");
		const plan = await api("POST", "/meetings", {
			key,
			json: { title: "Quarterly <b>review</b>", meeting_url: `https://meet.google.com/${titled}` },
		});
		expect(plan.status).toBe(201);
		const bare = await api("POST", "/bots", { key, json: { platform: "google_meet", native_meeting_id: plain } });
		expect(bare.status).toBe(201);
		const linkless = await api("POST", "/meetings", { key, json: {} });
		expect(linkless.status).toBe(201);
		const created = new Date(linkless.body.created_at as string).toISOString().slice(0, 16).replace("T", " ");

		const { page } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await seeText(page, `Google Meet ${plain}`);
		const names = await page.$$eval('table[aria-label="Meetings"] td[data-label="Meeting"] a', (links) =>
			links.map((a) => a.textContent ?? ""),
		);
		expect(names.sort()).toEqual(
			[`Google Meet ${plain}`, `Meeting without a link, created ${created} UTC`, "Quarterly <b>review</b>"].sort(),
		);
		expect(await page.$$('table[aria-label="Meetings"] b')).toHaveLength(0);
		await screenshot(page, "meeting-names");

		await page.goto(`${gateway()}/#/meetings/${bare.body.id}`);
		await page.waitForFunction((text: string) => document.querySelector("h1")?.textContent === text, {}, `Google Meet ${plain}`);
		await page.close();
	});
});
