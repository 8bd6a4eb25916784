/**
 * The dashboard's Join health page (docs/dashboard.md#join-health) in real headless Chromium
 * against the e2e stack: bots played over the real channel join or fail at different steps on
 * Zoom and Teams, and the page shows the figures the gateway computed from them, read with the
 * operator's metrics token, which the page keeps in this tab only and sends nowhere else. The
 * stack's meetings are shared by every e2e file, so the test reads the figures before and after
 * its own joins and checks what its joins added. Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { fill, launchBrowser, openPage, press, screenshot, seeText, signIn, storage, visibleText } from "./browser";
import { api, gateway, newAccount } from "./client";
import { playedMeeting } from "./simulated-bot";

interface PlatformFigures {
	platform: string;
	attempts: number;
	joined: number;
	failed: number;
	success_rate: number | null;
	admission_seconds: { measured: number; p50: number | null; p95: number | null };
	failures: { reason: string | null; cause: string | null; step: string | null; count: number }[];
	ended_before_admission: { reason: string | null; count: number }[];
}
interface Figures {
	windows: { window: "1h" | "24h"; platforms: PlatformFigures[] }[];
}

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

const token = () => inject("fleetMetricsToken");

async function figures(): Promise<Figures> {
	const res = await fetch(`${gateway()}/internal/fleet/join-health`, { headers: { Authorization: `Bearer ${token()}` } });
	expect(res.status).toBe(200);
	return (await res.json()) as Figures;
}

const lastHour = (health: Figures, platform: string): PlatformFigures => {
	const found = health.windows.find((w) => w.window === "1h")?.platforms.find((p) => p.platform === platform);
	if (!found) throw new Error(`no ${platform} figures`);
	return found;
};
const failuresAt = (p: PlatformFigures, reason: string, step: string | null) =>
	p.failures.filter((f) => f.reason === reason && f.cause === null && f.step === step).reduce((n, f) => n + f.count, 0);
const stopped = (p: PlatformFigures) => p.ended_before_admission.find((e) => e.reason === "stopped")?.count ?? 0;

/** A bot that gets as far as `statuses`, then fails with `reason` at `step`. */
async function failedJoin(key: string, platform: string, statuses: string[], reason: string, step: string) {
	const { bot } = await playedMeeting(key, { platform, statuses });
	await bot.send({ type: "status", status: "failed", completion_reason: reason, join_step: step, timestamp: new Date().toISOString() });
	bot.channel.close();
}

/** The text of each cell of the platform's row in the window's table. */
function rowText(page: Page, window: "1h" | "24h", platform: string): Promise<string[]> {
	return page.$$eval(`section[data-window="${window}"] tr[data-platform="${platform}"] > *`, (cells) =>
		cells.map((cell) => (cell.textContent ?? "").trim()),
	);
}

describe("the Join health page", () => {
	it("shows the figures of joins played on each platform, read with the operator's token only", async () => {
		const { key } = await newAccount(gateway());
		const before = await figures();

		// Zoom: two joins admitted, one denied in the lobby, one that never got an answer to its join.
		for (let i = 0; i < 2; i++) (await playedMeeting(key, { platform: "zoom", statuses: ["joining", "active"] })).bot.channel.close();
		await failedJoin(key, "zoom", ["joining", "awaiting_admission"], "awaiting_admission_rejected", "lobby");
		await failedJoin(key, "zoom", ["joining"], "join_failure", "ask_to_join");
		// Teams: a link that did not open, and one its user stopped before admission (no attempt).
		await failedJoin(key, "teams", ["joining"], "join_failure", "open_page");
		const stoppedMeeting = await playedMeeting(key, { platform: "teams", statuses: ["joining"] });
		expect((await api("DELETE", `/bots/teams/${stoppedMeeting.code}`, { key })).status).toBe(204);
		await stoppedMeeting.bot.send({
			type: "status",
			status: "completed",
			completion_reason: "stopped",
			timestamp: new Date().toISOString(),
		});

		const after = await figures();
		const [zoomBefore, zoom] = [lastHour(before, "zoom"), lastHour(after, "zoom")];
		const [teamsBefore, teams] = [lastHour(before, "teams"), lastHour(after, "teams")];
		expect(zoom.joined - zoomBefore.joined).toBe(2);
		expect(zoom.failed - zoomBefore.failed).toBe(2);
		expect(zoom.admission_seconds.measured - zoomBefore.admission_seconds.measured).toBe(2);
		expect(failuresAt(zoom, "awaiting_admission_rejected", "lobby") - failuresAt(zoomBefore, "awaiting_admission_rejected", "lobby")).toBe(
			1,
		);
		expect(failuresAt(zoom, "join_failure", "ask_to_join") - failuresAt(zoomBefore, "join_failure", "ask_to_join")).toBe(1);
		expect(teams.failed - teamsBefore.failed).toBe(1);
		expect(teams.attempts - teamsBefore.attempts).toBe(1);
		expect(failuresAt(teams, "join_failure", "open_page") - failuresAt(teamsBefore, "join_failure", "open_page")).toBe(1);
		expect(stopped(teams) - stopped(teamsBefore)).toBe(1);

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/join-health`);
		await seeText(page, "Metrics token");

		// A wrong token is refused and forgotten; the user stays signed in.
		await fill(page, "Metrics token", "not-the-metrics-token");
		await press(page, "Show join health");
		await seeText(page, "The metrics token was refused: Invalid or missing FLEET_METRICS_TOKEN");
		expect(await visibleText(page)).toContain("Sign out");
		expect((await storage(page)).session["meetbot.metrics-token"]).toBeUndefined();

		await fill(page, "Metrics token", token());
		await press(page, "Show join health");
		await seeText(page, "Last hour");
		await seeText(page, "Last day");
		const shown = await figures();
		const zoomShown = lastHour(shown, "zoom");
		const zoomRow = await rowText(page, "1h", "zoom");
		expect(zoomRow.slice(0, 3)).toEqual([
			"Zoom",
			`${Math.round((zoomShown.success_rate ?? 0) * 100)}%`,
			`${zoomShown.joined} of ${zoomShown.attempts} admitted`,
		]);
		expect(zoomRow[3]).toMatch(new RegExp(`^p50 .+ m?s, p95 .+ m?s \\(${zoomShown.admission_seconds.measured} joins\\)$`));
		const teamsShown = lastHour(shown, "teams");
		expect((await rowText(page, "1h", "teams"))[2]).toBe(`${teamsShown.joined} of ${teamsShown.attempts} admitted`);
		expect((await rowText(page, "1h", "teams"))[4]).toContain(`${stopped(teamsShown)} ended before admission`);

		// Where Zoom's failed joins stopped, as the gateway counted them.
		const zoomFailures = await page.$$eval('section[data-window="1h"] table[data-failures="zoom"] tbody tr', (rows) =>
			rows.map((row) => Array.from(row.querySelectorAll("td")).map((td) => (td.textContent ?? "").trim())),
		);
		expect(zoomFailures).toContainEqual([
			"the host turned the bot away",
			"—",
			"waiting in the lobby",
			String(failuresAt(zoomShown, "awaiting_admission_rejected", "lobby")),
		]);
		expect(zoomFailures).toContainEqual([
			"the bot could not join",
			"—",
			"asking to join",
			String(failuresAt(zoomShown, "join_failure", "ask_to_join")),
		]);
		// Worst first: each row's success rate is no higher than the next one's.
		const rates = await page.$$eval('section[data-window="1h"] tbody tr[data-platform] td:first-of-type', (cells) =>
			cells.map((cell) => (cell.textContent ?? "").trim()),
		);
		const measured = rates.filter((r) => r !== "no data").map((r) => Number.parseInt(r, 10));
		expect(measured).toEqual([...measured].sort((a, b) => a - b));
		expect(rates.slice(measured.length).every((r) => r === "no data")).toBe(true);
		await screenshot(page, "join-health", { hiding: [key, token()] });

		// The token went only to the join health route, as its Bearer; the key never went there.
		const sentToken = log.requests.filter((r) => Object.values(r.headers).some((v) => v.includes(token())));
		expect(sentToken.length).toBeGreaterThan(0);
		// Compared, never printed: a failure must not show the token.
		for (const r of sentToken) {
			expect(new URL(r.url).pathname).toBe("/internal/fleet/join-health");
			expect(r.headers.authorization === `Bearer ${token()}`).toBe(true);
			expect(r.headers["x-api-key"] === undefined).toBe(true);
		}
		expect(log.requests.filter((r) => r.url.includes(token()) || r.url.includes(key))).toEqual([]);
		expect((await storage(page)).session["meetbot.metrics-token"]).toBe(token());
		expect(Object.values((await storage(page)).local).join()).not.toContain(token());

		// Forgetting the token, or signing out, takes it out of the tab.
		await press(page, "Forget the metrics token");
		await seeText(page, "Metrics token");
		expect((await storage(page)).session["meetbot.metrics-token"]).toBeUndefined();
		await fill(page, "Metrics token", token());
		await press(page, "Show join health");
		await seeText(page, "Last hour");
		await press(page, "Sign out");
		await seeText(page, "Sign in to meetbot");
		const left = (await storage(page)).session;
		expect([left["meetbot.key"], left["meetbot.metrics-token"]]).toEqual([undefined, undefined]);
		// Only the wrong token's refusal, which Chromium logs as a failed load; no script error, no CSP report.
		expect(log.errors.filter((e) => !/status of 401/.test(e))).toEqual([]);
		await page.close();
	});
});
