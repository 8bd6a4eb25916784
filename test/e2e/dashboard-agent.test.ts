/**
 * The agent pages in real headless Chromium against the e2e gateway, the bot played over the
 * real channel and the users' model the scripted OpenAI-compatible streaming server: the copilot
 * page opened by a meeting's link or code, its cards one per thing across beats (and across a
 * reload's replay), a routine's last reply shown as text, and the chat's session list without
 * the `wl-…` sessions of workload runs.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import { fill, launchBrowser, openPage, press, screenshot, seeText, signIn, visibleText } from "./browser";
import { api, gateway, nativeId, newAccount } from "./client";
import { modelRequests, modelServer, script } from "./model-script";
import { playBot, spawnFor } from "./simulated-bot";

let browser: Browser;
let account: { key: string; userId: number };
let page: Page;

beforeAll(async () => {
	browser = await launchBrowser();
	account = await newAccount(gateway());
	const models = await api("PUT", "/user/models", {
		key: account.key,
		json: { base_url: `${modelServer()}/v1`, model: "e2e-agent-pages-model", api_key: "e2e-model-key-0123" },
	});
	expect(models.status).toBe(200);
	({ page } = await openPage(browser, `${gateway()}/`));
	await signIn(page, account.key);
});

afterAll(async () => {
	await browser?.close();
});

const now = () => new Date().toISOString();
const segment = (id: string, speaker: string, text: string, start: number) => ({
	type: "segment",
	segment: { segment_id: id, speaker, speaker_source: "caption", text, start, end: start + 1, language: "en", completed: true },
});

/** The cards the copilot column shows, as their titles and bodies. */
const cardsShown = (p: Page) =>
	p.$$eval('ul[aria-label="Cards"] li', (items) =>
		items.map((li) => ({
			title: li.querySelector(".card-title")?.textContent ?? "",
			body: li.querySelector(".reply-text")?.textContent ?? "",
		})),
	);

describe("the copilot page", () => {
	it("opens a meeting by its link, says what is wrong with anything else, and shows one card per thing across beats", async () => {
		const m = `dash-cards-${crypto.randomUUID().slice(0, 8)}`;
		const company = (title: string, body: string) => ({ name: "add_card", arguments: { kind: "company", title, body, actionable: false } });
		await script(m, [
			{ text: ["Alice is from Acme."], tool_calls: [company("Acme Corp", "Alice's company")] },
			{ text: ["Acme signed."], tool_calls: [company("ACME corp.", "Signed the pilot")] },
			{ text: ["Third beat, nothing new."], tool_calls: [company("  acme   Corp ", "Signed the pilot")] },
		]);
		const code = nativeId("google_meet");
		const created = await api("POST", "/bots", { key: account.key, json: { platform: "google_meet", native_meeting_id: code } });
		expect(created.status).toBe(201);
		const meetingId = created.body.id as number;
		// The title reaches every beat's prompt: the marker that keys the scripted answers.
		const title = `Pilot kickoff ${m}`;
		expect((await api("PATCH", `/meetings/google_meet/${code}`, { key: account.key, json: { title } })).status).toBe(200);
		const bot = await playBot(await spawnFor(meetingId));
		for (const status of ["joining", "active"]) await bot.send({ type: "status", status, timestamp: now() });

		await page.goto(`${gateway()}/#/agent/copilot`);
		await fill(page, "Meeting number, link or code", "https://example.com/meeting/42");
		await press(page, "Open meeting");
		await seeText(page, "That is not a Google Meet, Zoom or Teams meeting link");
		await fill(page, "Meeting number, link or code", "not a meeting");
		await press(page, "Open meeting");
		await seeText(page, "Type a meeting's number, its link (Google Meet, Zoom or Teams) or its code");
		expect(await visibleText(page)).not.toMatch(/NaN|expected number/i);

		await fill(page, "Meeting number, link or code", `meet.google.com/${code}`);
		await press(page, "Open meeting");
		await eventually("the meeting's own address", () => (page.url().endsWith(`#/agent/copilot/${meetingId}`) ? true : undefined));
		await seeText(page, title);
		await press(page, "Start copilot");
		await seeText(page, "Copilot started.");

		await bot.send(segment("s-1", "Alice", "I am Alice from Acme Corp", 1));
		await bot.send(segment("s-2", "Bob", "Welcome, Alice", 2));
		await seeText(page, "Alice's company", 30_000);
		await bot.send(segment("s-3", "Alice", "ACME signed the pilot", 3));
		await seeText(page, "Signed the pilot", 30_000);
		await bot.send(segment("s-4", "Bob", "Great news", 4));
		await seeText(page, "Third beat, nothing new.", 30_000);
		expect(await modelRequests(m)).toHaveLength(3);
		// Three beats named the company three ways: one card, updated in place.
		expect(await cardsShown(page)).toEqual([{ title: "Acme Corp", body: "Signed the pilot" }]);
		await screenshot(page, "agent-copilot-cards");

		// A fresh load replays the stream's recent events: still one card.
		await page.reload({ waitUntil: "load" });
		await seeText(page, "Third beat, nothing new.", 30_000);
		expect(await cardsShown(page)).toEqual([{ title: "Acme Corp", body: "Signed the pilot" }]);

		// An address that names the meeting by its code opens it too.
		await page.goto(`${gateway()}/#/agent/copilot/${code.toUpperCase()}`);
		await seeText(page, title);
		await seeText(page, "Third beat, nothing new.", 30_000);
		const other = nativeId("google_meet");
		await page.goto(`${gateway()}/#/agent/copilot/${other}`);
		await seeText(page, `No meeting of yours matches the code ${other}`);
		expect(await visibleText(page)).not.toMatch(/NaN|expected number/i);
	});
});

describe("routines and sessions", () => {
	it("shows a routine's last run, its outcome and its reply as text; the chat's sessions leave out the run's wl-… session", async () => {
		const r = `dash-routine-${crypto.randomUUID().slice(0, 8)}`;
		const reply = "Digest: <b>3 meetings</b> today <img src=x onerror=alert(1)>";
		await script(r, [{ text: [reply] }, { text: ["Hello from chat."] }]);
		const created = await api("POST", "/agent/api/routines", {
			key: account.key,
			// Once a year, and once now: the run happens at once, and no second run follows during the test.
			json: { name: "Morning digest", cron: "0 8 1 1 *", prompt: `Write the digest ${r}`, run_now: true },
		});
		expect(created.status).toBe(201);
		const ran = await eventually(
			"the routine's run",
			async () => {
				const listed = await api<{ routines: { name: string; last_reply: string | null; last_workload_id: string | null }[] }>(
					"GET",
					"/agent/routines",
					{ key: account.key },
				);
				const routine = listed.body.routines.find((x) => x.name === "Morning digest");
				return routine?.last_reply ? routine : undefined;
			},
			30_000,
		);

		await page.goto(`${gateway()}/#/agent/routines`);
		await seeText(page, "Last reply");
		await seeText(page, reply);
		await seeText(page, "succeeded");
		const dom = await page.evaluate(() => ({
			bold: document.querySelectorAll(".routine b").length,
			images: document.querySelectorAll(".routine img").length,
		}));
		expect(dom).toEqual({ bold: 0, images: 0 });
		await screenshot(page, "agent-routine-last-reply");

		await page.goto(`${gateway()}/#/agent/chat`);
		await fill(page, "Message", `Hello ${r}`);
		await press(page, "Send");
		await seeText(page, "Hello from chat.");
		const sessions = await eventually("the listed sessions", async () => {
			const names = await page.$$eval('nav[aria-labelledby="sessions-heading"] li a', (links) =>
				links.map((a) => a.childNodes[0]?.textContent?.trim() ?? ""),
			);
			return names.includes("main") && !(await visibleText(page)).includes("(new)") ? names : undefined;
		});
		expect(sessions.filter((name) => name.startsWith("wl-"))).toEqual([]);
		// The run's session exists; the API lists it only when asked to.
		const all = await api<{ sessions: { session: string }[] }>("GET", "/agent/sessions?include=workloads", { key: account.key });
		expect(all.body.sessions.map((s) => s.session)).toContain(`wl-${ran.last_workload_id}`);
	});
});
