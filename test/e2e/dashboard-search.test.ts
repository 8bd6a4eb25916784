/**
 * Searching transcripts from the dashboard (docs/dashboard.md#search), in real headless Chromium
 * against the e2e stack, the meetings' segments sent by bots played over the real channel: the
 * header's box opens the results, each hit names its meeting and links to it, and the matches are
 * <mark>s around text that a meeting's markup never becomes.
 * Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { fill, launchBrowser, openPage, press, screenshot, seeText, signIn } from "./browser";
import { api, gateway, newAccount } from "./client";
import { meetingSaying } from "./simulated-bot";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** What each listed hit shows: its meeting link's text and target, and its marked words. */
function shownHits(page: Page) {
	return page.evaluate(() =>
		Array.from(document.querySelectorAll(".search-hit")).map((hit) => {
			const link = hit.querySelector<HTMLAnchorElement>(".search-hit-meeting a");
			return {
				meeting: link?.textContent ?? "",
				href: link?.getAttribute("href") ?? "",
				about: hit.querySelector(".search-hit-meeting .muted")?.textContent ?? "",
				line: hit.querySelector(".search-hit-line")?.textContent ?? "",
				marks: Array.from(hit.querySelectorAll("mark")).map((mark) => mark.textContent),
			};
		}),
	);
}

describe("searching transcripts in the dashboard", () => {
	it("finds words across meetings from the header, marks them, names and links each meeting, and shows a meeting's markup as text", async () => {
		const xss = "<img src=x onerror=alert(1)>";
		const { key } = await newAccount(gateway());
		const titled = await meetingSaying(key, [
			["Alice", "The kestrel budget is approved"],
			["Bob", "Unrelated words"],
		]);
		const retitled = await api("PATCH", `/meetings/google_meet/${titled.code}`, { key, json: { title: "Quarterly <b>planning</b>" } });
		expect(retitled.status).toBe(200);
		const untitled = await meetingSaying(key, [[`Mallory ${xss}`, `${xss} kestrel <script>alert(2)</script> nest`]]);
		// Another account's meeting with the same word never shows.
		const other = await newAccount(gateway());
		await meetingSaying(other.key, [["Eve", "kestrel secrets of another account"]]);
		await eventually("both meetings indexed", async () => {
			const found = await api("GET", "/transcripts/search?q=kestrel", { key });
			return found.body.total === 2 ? true : undefined;
		});

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await fill(page, "Search transcripts", "KESTREL");
		await page.keyboard.press("Enter");
		await seeText(page, "2 matches");
		expect(new URL(page.url()).hash).toBe("#/search?q=KESTREL");

		const hits = await shownHits(page);
		expect(hits).toHaveLength(2);
		const byMeeting = new Map(hits.map((hit) => [hit.href, hit]));
		expect(byMeeting.get(`#/meetings/${titled.meetingId}`)).toMatchObject({
			meeting: "Quarterly <b>planning</b>",
			line: "Alice: The kestrel budget is approved",
			marks: ["kestrel"],
		});
		const attacked = byMeeting.get(`#/meetings/${untitled.meetingId}`);
		expect(attacked?.meeting).toBe(`Google Meet ${untitled.code}`);
		// A titled hit says its platform beside the title; an untitled one's name already says it.
		expect(byMeeting.get(`#/meetings/${titled.meetingId}`)?.about).toMatch(/^Google Meet · /);
		expect(attacked?.about).not.toContain("Google Meet");
		expect(attacked?.line).toBe(`Mallory ${xss}: ${xss} kestrel <script>alert(2)</script> nest`);
		expect(attacked?.marks).toEqual(["kestrel"]);
		await seeText(page, xss);
		await screenshot(page, "search-results");

		// Nothing a meeting said became an element or a handler.
		const injected = await page.evaluate(() => ({
			images: document.querySelectorAll("img").length,
			scripts: Array.from(document.querySelectorAll("script")).filter((s) => !s.src).length,
			bold: document.querySelectorAll("b").length,
			handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on")))
				.length,
		}));
		expect(injected).toEqual({ images: 0, scripts: 0, bold: 0, handlers: 0 });
		expect(log.dialogs).toEqual([]);
		expect(log.requests.filter((r) => new URL(r.url).pathname === "/x")).toEqual([]);

		// A filter narrows the hits; the hit's link opens its meeting.
		await fill(page, "Speaker", "alice");
		await press(page, "Search");
		await seeText(page, "1 match");
		expect(new URL(page.url()).hash).toContain("speaker=alice");
		await page.click(`.search-hit a[href="#/meetings/${titled.meetingId}"]`);
		// The meeting's own page, with its transcript: no hit list left.
		await page.waitForFunction(
			// biome-ignore lint/performance/useDomNodeTextContent: what the user sees is the point
			() => !document.querySelector(".search-hit") && document.body.innerText.includes("Unrelated words"),
			{ timeout: 15_000 },
		);
		expect(new URL(page.url()).hash).toBe(`#/meetings/${titled.meetingId}`);
		await page.close();
	});

	it("says what to fix when a query has nothing to search for, and when nothing matches", async () => {
		const { key } = await newAccount(gateway());
		const { page } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/search?q=${encodeURIComponent('"*"')}`);
		await seeText(page, "nothing to search for");
		await page.goto(`${gateway()}/#/search?q=nowhere`);
		await seeText(page, "No matches");
		await page.goto(`${gateway()}/#/search`);
		await seeText(page, "Type words to find");
		await page.close();
	});
});
