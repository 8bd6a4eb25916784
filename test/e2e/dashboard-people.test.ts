/**
 * Who was there and the chat on a meeting's page (docs/dashboard.md#a-meeting), in real headless
 * Chromium against the e2e stack, the bot played over the real channel: the People panel with
 * every stay, talk time and share, and the chat, while the meeting is live and after it ended
 * (read again from a fresh page). Names and chat are the meeting's own text: a name with HTML in
 * it shows as written, and nothing of it becomes markup. Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { injectedMarkup, launchBrowser, openPage, screenshot, seeText, signIn } from "./browser";
import { gateway, newAccount } from "./client";
import { playedMeeting } from "./simulated-bot";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const XSS = "<img src=x onerror=alert(1)>";
const at = (s: number) => new Date(Date.UTC(2026, 10, 22, 10, 0, s)).toISOString();

/** The People table's rows as text: name, stays, talk time, share. */
function peopleRows(page: Page) {
	return page.$$eval('[data-testid="people"] tbody tr', (rows) =>
		rows.map((row) => ({
			name: row.querySelector(".participant-name")?.textContent ?? "",
			stays: Array.from(row.querySelectorAll(".stays li")).map((li) => li.textContent ?? ""),
			talk: row.querySelector('[data-testid="talk-time"]')?.textContent ?? "",
			share: row.querySelector('[data-testid="talk-share"]')?.textContent ?? "",
		})),
	);
}

describe("who was there, on the meeting page", () => {
	it("shows each person's stays, talk time and share, and the chat, live and after the meeting ended", async () => {
		const { key } = await newAccount(gateway());
		const { meetingId, bot } = await playedMeeting(key, { statuses: ["joining", "active"] });
		const person = (event: "join" | "leave", id: string, name: string, s: number) =>
			bot.send({ type: "participant", event, participant: { id, name }, timestamp: at(s) });
		const said = (segment_id: string, speaker: string, start: number, end: number) =>
			bot.send({
				type: "segment",
				segment: { segment_id, speaker, speaker_source: "caption", text: `${speaker} speaks`, start, end, language: "en", completed: true },
			});
		await person("join", "p-a", "Alice", 1);
		await person("join", "p-x", XSS, 2);
		await person("leave", "p-a", "Alice", 40);
		await person("join", "p-a", "Alice", 50);
		await said("s-1", "Alice", 0, 30);
		await said("s-2", XSS, 31, 41);
		await said("s-3", "Carol", 42, 42 + 2.5);
		await bot.send({
			type: "chat",
			message: { sender: XSS, text: "see <b>the doc</b>", timestamp: Date.UTC(2026, 10, 22, 10, 0, 5), is_from_bot: false },
		});

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await page.waitForSelector('[data-testid="people"] tbody tr[data-participant="p-x"]', { timeout: 15_000 });
		const when = (s: number) => page.evaluate((iso: string) => new Date(iso).toLocaleString(), at(s));
		expect(await peopleRows(page)).toEqual([
			{
				name: "Alice",
				stays: [`joined ${await when(1)} · left ${await when(40)}`, `joined ${await when(50)} · still here`],
				talk: "0:30",
				share: "71%",
			},
			{ name: XSS, stays: [`joined ${await when(2)} · still here`], talk: "0:10", share: "24%" },
		]);
		await seeText(page, "Also speaking, matched to no one here by name: Carol (0:02, 6%)");
		// Live, the chat sits with the forms that act in the meeting.
		await page.waitForFunction(
			(xss: string) => document.querySelector('form[aria-labelledby="chat-heading"] .chat-sender')?.textContent === xss,
			{ timeout: 15_000 },
			XSS,
		);
		await screenshot(page, "people-live");

		await bot.send({ type: "status", status: "completed", completion_reason: "left_alone", timestamp: new Date().toISOString() });
		// Ended: the chat is a panel of its own, from the record, and stays nobody saw end are "until the end".
		await page.waitForSelector('[data-testid="chat-log"] .chat-sender', { timeout: 15_000 });
		await seeText(page, `joined ${await when(50)} · there until the end`);
		await page.close();

		// A fresh page after the meeting ended reads all of it from the record.
		const fresh = await openPage(browser, `${gateway()}/`);
		await signIn(fresh.page, key);
		await fresh.page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await fresh.page.waitForSelector('[data-testid="chat-log"] .chat-sender', { timeout: 15_000 });
		await fresh.page.waitForSelector('[data-testid="people"] tbody tr[data-participant="p-x"]', { timeout: 15_000 });
		const chat = await fresh.page.$$eval('[data-testid="chat-log"] li', (lines) =>
			lines.map((li) => [li.querySelector(".chat-sender")?.textContent, li.querySelector(".chat-text")?.textContent]),
		);
		expect(chat).toEqual([[XSS, "see <b>the doc</b>"]]);
		expect((await peopleRows(fresh.page)).map((r) => [r.name, r.talk, r.share])).toEqual([
			["Alice", "0:30", "71%"],
			[XSS, "0:10", "24%"],
		]);
		await screenshot(fresh.page, "people-ended");
		expect(await injectedMarkup(fresh.page)).toEqual({ images: 0, handlers: 0, bold: 0 });
		expect(fresh.log.dialogs).toEqual([]);
		expect(log.dialogs).toEqual([]);
		expect([...log.requests, ...fresh.log.requests].filter((r) => new URL(r.url).pathname.endsWith("/x")).map((r) => r.url)).toEqual([]);
		await fresh.page.close();
	});
});
