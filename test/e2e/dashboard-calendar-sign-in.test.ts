/**
 * Calendar sign-in from the dashboard (docs/dashboard.md#calendars) in real headless Chromium
 * against `wrangler dev`: the real bots' gateway has the deployment's Google and Microsoft clients,
 * pointed at the local Google Calendar and Graph (test/receiver/*-calendar-server.ts, started by
 * global-setup.ts). A click on "Sign in with Google" starts the sign-in with a same-origin fetch
 * (which sets the sign-in's cookie), the browser goes through the provider's authorization
 * endpoint, which answers as a user pressing "Allow" would (straight back with a code), and
 * returns through the gateway's callback to the Calendars page. The provider's consent page knows
 * who signs in by the `x-test-user` header the browser sends it.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { planTime } from "../../dashboard/src/plan-time";
import { meetCode } from "../shared/meetings";
import { eventually } from "../shared/wait";
import { launchBrowser, openPage, type PageLog, press, screenshot, seeText, signIn, tick } from "./browser";
import { apiAt, botGateway, newAccount } from "./client";

/** A zone half an hour off the hour, so a time shown in UTC or the server's zone cannot pass for it. */
const READER_ZONE = "Asia/Kolkata";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

type Provider = "google" | "microsoft";

/** The provider's side, as a test drives it: events it holds, and what it recorded. */
function providerAccount(provider: Provider, account: string) {
	const base = `${inject(provider === "google" ? "googleCalendarUrl" : "graphCalendarUrl")}/__accounts/${encodeURIComponent(account)}`;
	return {
		async putEvent(id: string, event: Record<string, unknown>) {
			expect((await fetch(`${base}/events/${encodeURIComponent(id)}`, { method: "PUT", body: JSON.stringify(event) })).status).toBe(200);
		},
		async stats(): Promise<{ exchanges: number; revocations: number; liveRefreshTokens: number }> {
			return (await fetch(base)).json() as Promise<{ exchanges: number; revocations: number; liveRefreshTokens: number }>;
		},
	};
}

/** An hour-long slot starting on a whole hour `hours` from now, in UTC. */
function hoursAhead(hours: number): { start: string; end: string } {
	const at = Math.floor((Date.now() + hours * 3600_000) / 3600_000) * 3600_000;
	return { start: new Date(at).toISOString(), end: new Date(at + 3600_000).toISOString() };
}

/** A Google event resource with a Meet link, as events.list gives it (hangoutLink, conferenceData). */
function meetEvent(title: string, code: string, at: { start: string; end: string }, organizer: string, attendees: string[]) {
	return {
		status: "confirmed",
		summary: title,
		start: { dateTime: at.start, timeZone: "UTC" },
		end: { dateTime: at.end, timeZone: "UTC" },
		organizer: { email: organizer },
		attendees: attendees.map((email) => ({ email, responseStatus: "accepted" })),
		hangoutLink: `https://meet.google.com/${code}`,
		conferenceData: {
			entryPoints: [{ entryPointType: "video", uri: `https://meet.google.com/${code}`, label: `meet.google.com/${code}` }],
			conferenceSolution: { key: { type: "hangoutsMeet" }, name: "Google Meet" },
		},
	};
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

const calendarRow = (page: Page) => page.$eval("tr[data-calendar-id]", (tr) => tr.textContent ?? "").catch(() => "");

/** A new page at the gateway's dashboard, signed in with `key`, on the Calendars page, the browser being `account` at the providers. */
async function calendarsPage(key: string, account: string): Promise<{ page: Page; log: PageLog; language: string }> {
	const { page, log } = await openPage(browser, `${botGateway()}/`);
	await page.emulateTimezone(READER_ZONE);
	await page.setExtraHTTPHeaders({ "x-test-user": account });
	const language = await page.evaluate(() => navigator.language);
	await signIn(page, key);
	await page.click("nav.site-nav a[href='#/calendars']");
	await seeText(page, "No calendars yet");
	return { page, log, language };
}

describe("signing in to Google Calendar from the dashboard", () => {
	let page: Page;
	let log: PageLog;
	let language: string;
	let key: string;
	const account = `owner-${crypto.randomUUID().slice(0, 8)}@example.com`;
	const google = providerAccount("google", account);
	const mine = hoursAhead(26);
	const theirs = hoursAhead(50);
	const calendarName = `Google Calendar (${account})`;

	beforeAll(async () => {
		({ key } = await newAccount(botGateway()));
		// One meeting the user organises, one someone else does: the organiser-only rule tells them apart.
		await google.putEvent("evt-mine", meetEvent("Design review", meetCode(), mine, account, [account, "bo@example.com"]));
		await google.putEvent(
			"evt-theirs",
			meetEvent("Vendor call", meetCode(), theirs, "vendor@example.net", [account, "vendor@example.net"]),
		);
		({ page, log, language } = await calendarsPage(key, account));
	});

	it("signs in through the provider and lands on the Calendars page, connected, its plans shown at once at their times", async () => {
		// One navigation: the provider's consent answers a redirect to the callback, which redirects to the page.
		await Promise.all([page.waitForNavigation({ waitUntil: "load" }), press(page, "Sign in with Google")]);
		await seeText(page, `Connected: ${calendarName}.`);
		expect(new URL(page.url()).hash).toMatch(/^#\/calendars/);

		// The browser went to the provider's authorization endpoint and back through the gateway's callback.
		const visited = log.requests.map((r) => new URL(r.url));
		expect(visited.some((u) => u.pathname === "/o/oauth2/v2/auth" && u.searchParams.get("code_challenge_method") === "S256")).toBe(true);
		expect(visited.some((u) => u.pathname === "/calendars/oauth/callback" && u.searchParams.has("code"))).toBe(true);
		expect((await google.stats()).exchanges).toBe(1);

		const row = await eventually("the connection listed", async () => {
			const text = await calendarRow(page);
			return text.includes(account) ? text : undefined;
		});
		expect(row).toContain("Google Calendar");
		expect(row).toContain("Joins every meeting with a link");
		await eventually("both plans listed", async () => ((await shownPlans(page)).length === 2 ? true : undefined));
		expect(await shownPlans(page)).toEqual([
			{ when: planTime(mine.start, language, READER_ZONE), meeting: expect.stringContaining("Design review"), calendar: calendarName },
			{ when: planTime(theirs.start, language, READER_ZONE), meeting: expect.stringContaining("Vendor call"), calendar: calendarName },
		]);
		// A time in the reader's zone, half past in Kolkata: not UTC's whole hour.
		expect(planTime(mine.start, language, READER_ZONE)).toContain(":30");
		await screenshot(page, "calendar-signed-in");
	});

	it("keeps only the meetings you organise once that rule is saved and the calendar synced", async () => {
		const rules = `form[aria-label='Auto-join rules of ${calendarName}']`;
		await page.waitForSelector(rules);
		await tick(page, "Only meetings I organise");
		await page.click(`${rules} button[type='submit']`);
		await seeText(page, `Auto-join rules of ${calendarName} saved.`);
		await seeText(page, "Joins only meetings you organise");

		await press(page, `Sync ${calendarName} now`);
		await seeText(page, `${calendarName} synced: 1 plan cancelled.`);
		await eventually("only the meeting you organise planned", async () => ((await shownPlans(page)).length === 1 ? true : undefined));
		expect(await shownPlans(page)).toEqual([
			{ when: planTime(mine.start, language, READER_ZONE), meeting: expect.stringContaining("Design review"), calendar: calendarName },
		]);
		const listed = await apiAt<{ calendars: { auto_join_rules: unknown }[] }>(botGateway(), "GET", "/user/calendars", { key });
		expect(listed.body.calendars[0]?.auto_join_rules).toEqual({ organizer_only: true, min_attendees: null });
	});

	it("removes the connection, and the provider records the revoke", async () => {
		expect((await google.stats()).revocations).toBe(0);
		await press(page, `Remove ${calendarName}`);
		await press(page, "Yes, remove it");
		await seeText(page, `Calendar ${calendarName} removed.`);
		await seeText(page, "No calendars yet");
		await seeText(page, "No planned meetings.");
		const stats = await eventually("the revoke recorded", async () => {
			const now = await google.stats();
			return now.revocations === 1 ? now : undefined;
		});
		expect(stats.liveRefreshTokens).toBe(0);
		expect((await apiAt<{ calendars: unknown[] }>(botGateway(), "GET", "/user/calendars", { key })).body.calendars).toEqual([]);
		// The key stayed in its header: never in an address the page asked for, the provider's among them.
		expect(log.requests.filter((r) => r.url.includes(key))).toEqual([]);
		expect(log.errors).toEqual([]);
		await page.close();
	});

	it("refuses a sign-in link opened in another browser, which lacks the sign-in's cookie, with a page saying so", async () => {
		// The start's cookie went to this Node client; the link is then opened in a fresh browser context.
		const started = await apiAt<{ authorization_url: string }>(botGateway(), "POST", "/user/calendars/oauth/google", {
			key,
			json: { return_to: "/#/calendars" },
		});
		expect(started.status).toBe(200);
		expect(started.headers.get("set-cookie")).toMatch(/^calendar_sign_in_[^=]+=.+Path=\/calendars\/oauth\/callback.*HttpOnly/i);
		const other = await browser.createBrowserContext();
		try {
			const stranger = await other.newPage();
			await stranger.setExtraHTTPHeaders({ "x-test-user": account });
			const answer = await stranger.goto(started.body.authorization_url, { waitUntil: "load" });
			expect(new URL(stranger.url()).pathname).toBe("/calendars/oauth/callback");
			expect(answer?.status()).toBe(400);
			await seeText(stranger, "This calendar sign-in was started in another browser");
		} finally {
			await other.close();
		}
		expect((await apiAt<{ calendars: unknown[] }>(botGateway(), "GET", "/user/calendars", { key })).body.calendars).toEqual([]);
		expect((await google.stats()).exchanges).toBe(1);
	});
});

describe("signing in to Microsoft 365 from the dashboard", () => {
	it("connects, lists it with the account, plans its Teams meeting, and removes it", async () => {
		const { key } = await newAccount(botGateway());
		const upn = `owner-${crypto.randomUUID().slice(0, 8)}@contoso.example`;
		const at = hoursAhead(30);
		const local = (iso: string) => iso.replace(/\.\d{3}Z$/, ".0000000");
		await providerAccount("microsoft", upn).putEvent("AAMk-e2e", {
			subject: "Quarterly planning",
			start: { dateTime: local(at.start), timeZone: "UTC" },
			end: { dateTime: local(at.end), timeZone: "UTC" },
			isAllDay: false,
			isCancelled: false,
			isOrganizer: true,
			organizer: { emailAddress: { name: "Owner", address: upn } },
			attendees: [],
			isOnlineMeeting: true,
			onlineMeetingProvider: "teamsForBusiness",
			onlineMeeting: {
				joinUrl: `https://teams.microsoft.com/l/meetup-join/19%3ameeting_${Date.now()}%40thread.v2/0?context=%7b%22Tid%22%3a%22t%22%7d`,
			},
			body: { contentType: "html", content: "<html><body></body></html>" },
		});
		const { page, log, language } = await calendarsPage(key, upn);
		const calendarName = `Microsoft 365 (${upn})`;

		await Promise.all([page.waitForNavigation({ waitUntil: "load" }), press(page, "Sign in with Microsoft")]);
		await seeText(page, `Connected: ${calendarName}.`);
		expect(log.requests.some((r) => new URL(r.url).pathname.endsWith("/oauth2/v2.0/authorize"))).toBe(true);
		const row = await eventually("the connection listed", async () => {
			const text = await calendarRow(page);
			return text.includes(upn) ? text : undefined;
		});
		expect(row).toContain("Microsoft 365");
		await eventually("the plan listed", async () => ((await shownPlans(page)).length === 1 ? true : undefined));
		expect(await shownPlans(page)).toEqual([
			{ when: planTime(at.start, language, READER_ZONE), meeting: expect.stringContaining("Quarterly planning"), calendar: calendarName },
		]);

		await press(page, `Remove ${calendarName}`);
		await press(page, "Yes, remove it");
		await seeText(page, `Calendar ${calendarName} removed.`);
		await seeText(page, "No calendars yet");
		await seeText(page, "No planned meetings.");
		expect((await apiAt<{ calendars: unknown[] }>(botGateway(), "GET", "/user/calendars", { key })).body.calendars).toEqual([]);
		expect(log.errors).toEqual([]);
		await page.close();
	});
});
