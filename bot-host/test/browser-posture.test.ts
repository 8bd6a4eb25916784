/**
 * What a platform's page sees of a bot's browser. The launch every bot gets (bot/browser.ts) is a
 * headed Chromium on an X display of its own, without the automation switch: navigator.webdriver
 * false, a user agent without "Headless", a real window with a toolbar that has the focus and is
 * visible, English asked for in the UI and in Accept-Language. Its display lets in no one without
 * its cookie and ends with the browser. The sandbox's Meet, which refuses a join from a browser
 * that looks automated (scenario `bot_detection`), lets such a bot in, typing a name with an
 * accent and an emoji; the launch bots had before (headless, `--enable-automation`, DevTools
 * clicks) gets "You can't join this video call".
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../test/shared/wait.ts";
import { type BotBrowser, type BrowserOptions, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { alive } from "./browsers.ts";
import { spawnBot, useWorld } from "./harness.ts";
import { statusesOf } from "./room.ts";

const BROWSER: BrowserOptions = {
	executablePath: "/usr/bin/chromium",
	extraFlags: [],
	fakeDevices: true,
	sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
};

/** What a page can read of its browser, and the Accept-Language its request carried. */
async function posture(bot: BotBrowser, url: string, acceptLanguage: () => string | undefined) {
	const page = await bot.browser.newPage();
	await page.goto(url);
	const seen = await page.evaluate(() => ({
		webdriver: navigator.webdriver,
		userAgent: navigator.userAgent,
		languages: [...navigator.languages],
		outerWidth,
		outerHeight,
		innerWidth,
		innerHeight,
		screenWidth: screen.width,
		focused: document.hasFocus(),
		visibility: document.visibilityState,
	}));
	await page.close();
	return { ...seen, acceptLanguage: acceptLanguage() };
}

const commandLine = (pid: number | undefined) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");

describe("the browser a platform sees", () => {
	let server: http.Server;
	let url: string;
	let lastAcceptLanguage: string | undefined;
	beforeAll(async () => {
		server = http.createServer((req, res) => {
			lastAcceptLanguage = req.headers["accept-language"];
			res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>posture</title><p>hello</p>");
		});
		await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
		url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
	});
	afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

	it("is headed on a display of its own, with navigator.webdriver false, a real user agent, a focused visible window and English", async () => {
		const [one, two] = await Promise.all([launchBotBrowser("posture-a", BROWSER), launchBotBrowser("posture-b", BROWSER)]);
		try {
			const seen = await posture(one, url, () => lastAcceptLanguage);
			expect(seen).toMatchObject({
				webdriver: false,
				languages: ["en-US", "en"],
				screenWidth: 1280,
				focused: true,
				visibility: "visible",
				acceptLanguage: "en-US,en;q=0.9",
			});
			expect(seen.userAgent).toMatch(/^Mozilla\/5\.0 \(X11; Linux x86_64\) .* Chrome\/\d+/);
			expect(seen.userAgent).not.toContain("Headless");
			expect(seen.outerWidth).toBeGreaterThan(0);
			// A window with a tab strip and a toolbar above the page, as a person's has.
			expect(seen.outerHeight - seen.innerHeight).toBeGreaterThan(40);

			const flags = commandLine(one.browser.process()?.pid);
			expect(flags).not.toContain("--enable-automation");
			expect(flags).not.toContain("--headless=new");
			expect(flags).toContain("--disable-blink-features=AutomationControlled");

			// Each bot its own display, which nobody without its cookie may use.
			expect(one.display?.name).toMatch(/^:\d+$/);
			expect(two.display?.name).not.toBe(one.display?.name);
			const env = { ...process.env, DISPLAY: one.display?.name ?? "", XAUTHORITY: "/nonexistent" };
			expect(spawnSync("xdotool", ["getdisplaygeometry"], { env }).status).not.toBe(0);
			const own = spawnSync("xdotool", ["getdisplaygeometry"], { env: { ...env, ...one.display?.env } });
			expect(own.stdout.toString().trim()).toBe("1280 900");
			expect(commandLine(one.display?.pid)).toEqual(expect.arrayContaining(["-nolisten", "tcp", "-auth"]));
		} finally {
			await Promise.all([one.close(), two.close()]);
		}
		expect(alive(one.display?.pid ?? 0)).toBe(false);
		expect(alive(two.display?.pid ?? 0)).toBe(false);
	});

	it("launched the former way (headless, --enable-automation), shows a page all the signs a platform looks for", async () => {
		const former = await launchBotBrowser("posture-former", { ...BROWSER, formerHeadless: true });
		try {
			const seen = await posture(former, url, () => lastAcceptLanguage);
			expect(seen.webdriver).toBe(true);
			expect(seen.userAgent).toContain("HeadlessChrome");
			expect(former.display).toBeNull();
		} finally {
			await former.close();
		}
	});
});

describe("the sandbox's Meet, which refuses browsers that look automated", () => {
	const world = useWorld();
	const formerWorld = useWorld({ formerHeadless: true });

	it("lets a bot in: its name typed with an accent and an emoji, mic and camera off, Ask to join clicked from the display", async () => {
		const bot = await spawnBot(
			world,
			"google_meet",
			{ admit_after_ms: 300, participants: [{ name: "Pia" }] },
			{ bot_name: "Notetaker Zoë 🤖" },
		);
		await world.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "active"));
		const observed = world.sandbox.observed(bot.nativeId);
		expect(observed?.bot_names).toEqual(["Notetaker Zoë 🤖"]);
		expect(observed?.attendees[0]).toMatchObject({
			phases: ["lobby", "in_call"],
			automation_signals: [],
			mic_on_at_join: false,
			camera_on_at_join: false,
		});
		world.room.command(bot.meetingId, { action: "leave" });
	});

	it("shows the former launch 'You can't join this video call' instead of the lobby, naming every sign it saw", async () => {
		const bot = await spawnBot(formerWorld, "google_meet", { admit_after_ms: 300, participants: [{ name: "Pia" }] });
		await until("the former launch blocked", () => formerWorld.sandbox.observed(bot.nativeId)?.attendees[0]?.phase === "blocked", 30_000);
		const attendee = formerWorld.sandbox.observed(bot.nativeId)?.attendees[0];
		expect(attendee?.phases).toEqual(["blocked"]);
		expect(attendee?.automation_signals).toEqual([
			"navigator.webdriver is true",
			"a HeadlessChrome user agent",
			expect.stringMatching(/^the pointer came to the button without a path \([01] position\(s\) on its way\)$/),
		]);
		// The bot is stuck on a screen it cannot get past: it never gets into the call.
		await formerWorld.room.until(bot.meetingId, (r) => statusesOf(r).some((s) => s.status === "needs_help"));
		expect(statusesOf(formerWorld.room.received(bot.meetingId)).map((s) => s.status)).not.toContain("active");
		formerWorld.room.command(bot.meetingId, { action: "leave" });
	});
});
