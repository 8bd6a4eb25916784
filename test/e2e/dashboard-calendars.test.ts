/**
 * The Calendars page (docs/dashboard.md#calendars) in real headless Chromium against `wrangler
 * dev`: an ICS calendar served by the local receiver (a real HTTP server, reached through the
 * outbound guard, which the e2e gateway lets reach loopback) is added from the form, and its plans
 * show at once with their times in the reader's zone; then synced, disabled, enabled and removed.
 * Calendar sign-in buttons stay hidden on a deployment without a provider's client (this gateway;
 * dashboard-calendar-sign-in.test.ts signs in on one with them).
 * Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planTime } from "../../dashboard/src/plan-time";
import { meetCode } from "../shared/meetings";
import { eventually } from "../shared/wait";
import { fill, launchBrowser, openPage, type PageLog, press, screenshot, seeText, signIn, visibleText } from "./browser";
import { api, gateway, newAccount, receiverUrl } from "./client";

/** A zone half an hour off the hour, so a time shown in UTC or the server's zone cannot pass for it. */
const READER_ZONE = "Asia/Kolkata";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** An ICS UTC date-time `hours` from now on a whole hour, and its ISO instant. */
function hoursAhead(hours: number): { ics: string; iso: string } {
	const at = new Date(Math.floor((Date.now() + hours * 3600_000) / 3600_000) * 3600_000);
	return {
		ics: at
			.toISOString()
			.replace(/[-:]/g, "")
			.replace(/\.\d{3}/, ""),
		iso: at.toISOString(),
	};
}

function feedOf(events: { uid: string; start: string; title: string; code: string }[]): string {
	const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//e2e//calendars//EN"];
	for (const e of events) {
		lines.push(
			"BEGIN:VEVENT",
			`UID:${e.uid}`,
			"DTSTAMP:20240101T000000Z",
			`DTSTART:${e.start}`,
			"DURATION:PT30M",
			`SUMMARY:${e.title}`,
			`LOCATION:https://meet.google.com/${e.code}`,
			"END:VEVENT",
		);
	}
	return [...lines, "END:VCALENDAR", ""].join("\r\n");
}

async function serve(path: string, body: string): Promise<void> {
	const res = await fetch(`${receiverUrl()}/__control/serve?path=${encodeURIComponent(path)}`, { method: "POST", body });
	if (!res.ok) throw new Error(`serve feed: ${res.status}`);
}

/** The plans table as shown: each row's When, Meeting and Calendar cells. */
function shownPlans(page: Page) {
	return page.$$eval("table[aria-label='Plans'] tbody tr", (rows) =>
		rows.map((row) => {
			const cell = (label: string) => row.querySelector(`td[data-label='${label}']`)?.textContent?.trim() ?? "";
			return {
				when: row.querySelector("td[data-label='When'] time")?.textContent ?? "",
				meeting: cell("Meeting"),
				calendar: cell("Calendar"),
			};
		}),
	);
}

describe("the Calendars page", () => {
	let page: Page;
	let log: PageLog;
	let key: string;
	let language: string;
	const token = `private-${crypto.randomUUID().replaceAll("-", "")}`;
	const feedPath = `/feeds/${token}/team.ics`;
	const soon = hoursAhead(26);
	const later = hoursAhead(50);
	const latest = hoursAhead(74);
	const [soonCode, laterCode, latestCode] = [meetCode(), meetCode(), meetCode()];
	const twoEvents = [
		// Written latest first, so the page's order is its own.
		{ uid: "later@e2e", start: later.ics, title: "Roadmap <b>review</b>", code: laterCode },
		{ uid: "soon@e2e", start: soon.ics, title: "Standup", code: soonCode },
	];

	beforeAll(async () => {
		({ key } = await newAccount());
		({ page, log } = await openPage(browser, `${gateway()}/`));
		await page.emulateTimezone(READER_ZONE);
		language = await page.evaluate(() => navigator.language);
		await signIn(page, key);
		await page.click("nav.site-nav a[href='#/calendars']");
		await seeText(page, "No calendars yet");
	});

	it("offers no calendar sign-in on a deployment without a provider's client", async () => {
		await eventually("the providers route to be asked", async () =>
			log.responses.find((r) => new URL(r.url).pathname === "/user/calendars/providers"),
		);
		const asked = log.responses.find((r) => new URL(r.url).pathname === "/user/calendars/providers");
		// Asked and answered: every provider is there, none configured.
		expect(asked?.status).toBe(200);
		expect((await api("GET", "/user/calendars/providers", { key })).body).toEqual({
			providers: [
				{ id: "google", configured: false },
				{ id: "microsoft", configured: false },
			],
		});
		await seeText(page, "Add an ICS calendar");
		expect(await visibleText(page)).not.toContain("Sign in with");
		expect(await page.$(".calendar-sign-in")).toBeNull();
	});

	it("refuses an address that is not https, in words, naming the field as labelled", async () => {
		await fill(page, "Calendar name", "Wrong");
		await fill(page, "ICS address", "webcal://calendar.example/feed.ics");
		// type=url: the browser itself accepts webcal://, so the API's refusal is what shows.
		await press(page, "Add calendar");
		await seeText(page, /Not added: ICS address: .*https:\/\//);
		expect(await visibleText(page)).not.toContain("body.ics_url");
		expect((await api<{ calendars: unknown[] }>("GET", "/user/calendars", { key })).body.calendars).toEqual([]);
	});

	it("adds an ICS calendar whose plans show at once, soonest first, at their times in the reader's zone", async () => {
		await serve(feedPath, feedOf(twoEvents));
		await fill(page, "Calendar name", "Team");
		await fill(page, "ICS address", `${receiverUrl()}${feedPath}`);
		await fill(page, "Bot name", "Team notes");
		await press(page, "Add calendar");
		await seeText(page, "Calendar Team added and synced: 2 meetings planned.");
		await eventually("both plans listed", async () => ((await shownPlans(page)).length === 2 ? true : undefined));

		const soonShown = planTime(soon.iso, language, READER_ZONE);
		// 30 minutes past in Kolkata, whichever clock the locale uses: the time is the reader's, not UTC.
		expect(soonShown).toContain(":30");
		expect(await shownPlans(page)).toEqual([
			{ when: soonShown, meeting: expect.stringContaining("Standup"), calendar: "Team" },
			{ when: planTime(later.iso, language, READER_ZONE), meeting: expect.stringContaining("Roadmap <b>review</b>"), calendar: "Team" },
		]);
		const row = await eventually("the calendar listed with its first sync", async () => {
			const text = await page.$eval("tr[data-calendar-id]", (tr) => tr.textContent ?? "").catch(() => "");
			return text.includes("2 meetings planned") ? text : undefined;
		});
		expect(row).toContain("ICS feed");
		expect(row).toContain("Joins its meetings by itself, as Team notes");
		expect(row).toContain("2 meetings planned");
		// The feed's address is a credential: shown only shortened, never in full.
		expect(await visibleText(page)).not.toContain(token);
		expect(log.requests.filter((r) => r.url.includes(token))).toEqual([]);
		await screenshot(page, "calendars-added");
	});

	it("syncs on request: a new event in the feed becomes a plan", async () => {
		await serve(feedPath, feedOf([...twoEvents, { uid: "latest@e2e", start: latest.ics, title: "Retro", code: latestCode }]));
		await press(page, "Sync Team now");
		await seeText(page, "Team synced: 1 meeting planned.");
		await eventually("the new plan listed", async () => ((await shownPlans(page)).length === 3 ? true : undefined));
		expect((await shownPlans(page)).at(-1)).toEqual({
			when: planTime(latest.iso, language, READER_ZONE),
			meeting: expect.stringContaining("Retro"),
			calendar: "Team",
		});
	});

	it("disables and enables a calendar: a disabled one cannot be synced, enabling syncs it at once", async () => {
		await press(page, "Disable Team");
		await seeText(page, "Team disabled: it is no longer synced.");
		await seeText(page, "Disabled: not synced");
		const syncButton = () => page.$eval("button[aria-label='Sync Team now']", (b) => (b as HTMLButtonElement).disabled);
		expect(await syncButton()).toBe(true);
		const [listed] = (await api<{ calendars: { enabled: boolean }[] }>("GET", "/user/calendars", { key })).body.calendars;
		expect(listed?.enabled).toBe(false);

		await press(page, "Enable Team");
		await seeText(page, "Team enabled and synced: nothing changed.");
		await eventually("the sync button back", async () => ((await syncButton()) ? undefined : true));
	});

	it("says a calendar sign-in's return: connected, or why not", async () => {
		const [calendar] = (await api<{ calendars: { id: string }[] }>("GET", "/user/calendars", { key })).body.calendars;
		await page.goto(`${gateway()}/?calendar=${calendar?.id}#/calendars`);
		await seeText(page, "Connected: Team.");
		// Read once: the marker leaves the address, so a reload does not say it again.
		expect(new URL(page.url()).search).toBe("");
		await page.goto(`${gateway()}/#/calendars?calendar_error=access_denied`);
		await seeText(page, "The calendar was not connected: access was not granted at the provider");
	});

	it("removes a calendar after a confirmation, and its plans with it", async () => {
		await page.goto(`${gateway()}/#/calendars`);
		await seeText(page, "Your calendars");
		await press(page, "Remove Team");
		await seeText(page, "Remove Team? The meetings only it planned are deleted");
		await press(page, "Cancel");
		expect((await api<{ calendars: unknown[] }>("GET", "/user/calendars", { key })).body.calendars).toHaveLength(1);

		await press(page, "Remove Team");
		await press(page, "Yes, remove it");
		await seeText(page, "Calendar Team removed.");
		await seeText(page, "No calendars yet");
		await seeText(page, "No planned meetings.");
		expect((await api<{ calendars: unknown[] }>("GET", "/user/calendars", { key })).body.calendars).toEqual([]);
		// Nothing failed in the page but the refusals the test asked for (a 404 or 422 logs a line of its own).
		expect(log.errors.filter((e) => !/^Failed to load resource: the server responded with a status of (404|422)/.test(e))).toEqual([]);
	});
});

describe("plans on the meetings page", () => {
	it("shows when each plan is, in the reader's zone, and which calendar planned it; the meetings list gives its time too", async () => {
		const { key } = await newAccount();
		const path = `/feeds/private-${crypto.randomUUID().replaceAll("-", "")}/plans.ics`;
		const at = hoursAhead(30);
		await serve(path, feedOf([{ uid: "weekly@e2e", start: at.ics, title: "Weekly sync", code: meetCode() }]));
		const made = await api<{ sync: { counts: { created: number } } | null }>("POST", "/user/calendars", {
			key,
			json: { name: "Home", ics_url: `${receiverUrl()}${path}` },
		});
		expect(made.status).toBe(201);
		expect(made.body.sync?.counts.created).toBe(1);

		const { page } = await openPage(browser, `${gateway()}/`);
		await page.emulateTimezone(READER_ZONE);
		const language = await page.evaluate(() => navigator.language);
		await signIn(page, key);
		await seeText(page, "Weekly sync");
		await eventually("the plan listed", async () => ((await shownPlans(page)).length === 1 ? true : undefined));
		expect(await shownPlans(page)).toEqual([
			{ when: planTime(at.iso, language, READER_ZONE), meeting: expect.stringContaining("Weekly sync"), calendar: "Home" },
		]);
		// The meetings list too gives a plan's time, not when it was made.
		const listed = await page.$eval("table[aria-label='Meetings'] td[data-label='When']", (td) => td.textContent);
		expect(listed).toBe(new Date(at.iso).toLocaleString(language, { timeZone: READER_ZONE }));
		await page.close();
	});
});
