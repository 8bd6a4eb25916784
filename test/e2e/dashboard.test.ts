/**
 * The dashboard in real headless Chromium against the e2e stack: signed in once on the gateway
 * whose bot host runs real bots into the platform sandbox, with one browser for the file.
 * Screenshots go to .local/artifacts/dashboard/.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../shared/wait";
import {
	fill,
	launchBrowser,
	openPage,
	type PageLog,
	press,
	screenshot,
	seeText,
	signIn,
	storage,
	tick,
	transcriptLinesSeen,
	visibleText,
	watchTranscriptLines,
} from "./browser";
import { api, apiAt, botGateway, gateway, nativeId, newAccount, receiverUrl, sandboxObserved, sandboxScenario } from "./client";
import { modelServer, script } from "./model-script";
import { playBot, playedMeeting, spawnFor } from "./simulated-bot";

let browser: Browser;

beforeAll(async () => {
	browser = await launchBrowser();
});

afterAll(async () => {
	await browser?.close();
});

/** Where in what the page asked for a secret turns up: URLs of requests and sockets, and localStorage. */
async function leaksOf(page: Page, log: PageLog, secret: string) {
	const { local } = await storage(page);
	return [
		...log.requests.filter((r) => r.url.includes(secret)).map((r) => `request ${r.method} ${r.url}`),
		...log.sockets.filter((u) => u.includes(secret)).map((u) => `socket ${u}`),
		...Object.entries(local)
			.filter(([k, v]) => k.includes(secret) || v.includes(secret))
			.map(([k]) => `localStorage ${k}`),
		...(page.url().includes(secret) ? [`address ${page.url()}`] : []),
	];
}

describe("the dashboard with a real bot in a sandbox meeting", () => {
	let account: { key: string; userId: number };
	let page: Page;
	let log: PageLog;

	beforeAll(async () => {
		account = await newAccount(botGateway());
		({ page, log } = await openPage(browser, `${botGateway()}/`));
	});

	it("signs in with a key, which stays in a header: never in a URL or localStorage", async () => {
		await fill(page, "API key", "vxa_bot_not-a-key-at-all-0000000000000000000000");
		await press(page, "Sign in");
		await seeText(page, "Invalid API key");

		await signIn(page, account.key);
		await seeText(page, "Your meetings");
		// The live feed connects with a one-use ticket, not the key.
		const socket = await eventually("a /ws connection", () => log.sockets.find((u) => u.includes("/ws")));
		expect(socket).toMatch(/\/ws\?ticket=wst_\d+_[\w-]{43}$/);
		await seeText(page, "Live updates: on");

		const apiCalls = log.requests.filter((r) => new URL(r.url).pathname === "/auth/me");
		expect(apiCalls.at(-1)?.headers["x-api-key"]).toBe(account.key);
		expect(await leaksOf(page, log, account.key)).toEqual([]);
		expect((await storage(page)).session).toEqual({ "meetbot.key": account.key });
		await screenshot(page, "meetings");
	});

	it("saves webhook settings from the settings page, showing the secret only masked", async () => {
		await page.goto(`${botGateway()}/#/settings`);
		const hookUrl = `${receiverUrl()}/hooks/dashboard-${crypto.randomUUID()}`;
		await fill(page, "Webhook URL", hookUrl);
		await fill(page, "Signing secret", "dashboard-webhook-secret-0123456789");
		await tick(page, "Every status change");
		await press(page, "Save webhook");
		await seeText(page, "Webhook settings saved.");

		const stored = await apiAt(botGateway(), "GET", "/user/webhook", { key: account.key });
		expect(stored.body).toMatchObject({
			webhook_url: hookUrl,
			webhook_secret_set: true,
			webhook_secret: "****6789",
			webhook_events: expect.objectContaining({ "meeting.status_change": true }),
		});
		await seeText(page, "****6789");
		const shown = await visibleText(page);
		expect(shown).not.toContain("dashboard-webhook-secret-0123456789");
		await screenshot(page, "settings");
	});

	it("sends a bot from the form, shows the transcript while it is spoken, stops the bot and plays the recording", async () => {
		const code = nativeId("google_meet");
		const lines = {
			alice: "Good morning everyone, the budget is approved.",
			bruno: "Great news, I will update the roadmap today.",
			late: "One more thing, the offsite is in March.",
		};
		await sandboxScenario(code, {
			admit_after_ms: 800,
			participants: [
				{ name: "Alice Chen", lines: [lines.alice, lines.late] },
				{ name: "Bruno Diaz", lines: [lines.bruno] },
			],
			speech_start_ms: 1500,
			speech_gap_ms: 1500,
		});
		await page.goto(`${botGateway()}/#/meetings`);
		await fill(page, "Meeting link", `https://meet.google.com/${code}`);
		await fill(page, "Bot name", "Dashboard Notetaker");
		await tick(page, "Record the meeting");
		// Video and audio at 720p is the form's first choice; it is chosen here as a user would.
		await page.locator('::-p-aria([name="What to record"][role="combobox"])').wait();
		await page.select('select[name="recording_kind"]', "video-720p");
		await press(page, "Send bot");
		await seeText(page, `Bot sent to Google Meet ${code}`);
		await page.locator('::-p-aria([name="Open the meeting"][role="link"])').click();
		await watchTranscriptLines(page);
		await seeText(page, code);
		// Sent with recording on: the live page says what it records before any file exists.
		await seeText(page, "Recording (video 720p / audio)");
		expect(await visibleText(page)).not.toContain("No recording");

		// The lines show up as the meeting speaks them, not after it ends.
		await seeText(page, "budget is approved", 60_000);
		await seeText(page, "roadmap", 30_000);
		await seeText(page, "offsite is in March", 30_000);
		await page.waitForSelector(".meeting-header .status-badge[data-status='active']");
		await seeText(page, "Alice Chen");
		await seeText(page, "Bruno Diaz");
		// The README's picture of the meeting page (docs/images/meeting-page.png is a copy of one run's).
		await screenshot(page, "meeting-page", { fullPage: false });
		const seen = await transcriptLinesSeen(page);
		const observed = (await sandboxObserved(code)) as { captions_shown: { speaker: string; text: string; at: number }[] };
		const lastSpoken = Math.max(...observed.captions_shown.filter((c) => c.text.includes("offsite")).map((c) => c.at));
		const firstShown = Math.min(...seen.filter((l) => l.text.includes("budget is approved")).map((l) => l.at));
		expect(firstShown).toBeLessThan(lastSpoken);
		expect(seen.some((l) => l.speaker === "Alice Chen" && l.state === "confirmed" && l.text.includes("budget is approved"))).toBe(true);
		// Lines still being spoken show as pending first, then confirmed.
		expect(seen.some((l) => l.state === "pending")).toBe(true);

		await press(page, "Stop the bot");
		await page.waitForSelector(".meeting-header .status-badge[data-status='completed']", { timeout: 60_000 });
		await seeText(page, "you stopped the bot");

		// The bot uploads the recording as it leaves.
		const meetingId = Number(new URL(page.url()).hash.split("/").at(-1));
		await eventually(
			"the recording stored",
			async () => {
				const r = await apiAt<{ recordings: { status: string }[] }>(botGateway(), "GET", `/recordings?meeting_id=${meetingId}`, {
					key: account.key,
				});
				return r.body.recordings[0]?.status === "completed" ? true : undefined;
			},
			45_000,
		);
		// The page reads the recordings again on its own (no reload): the players show the finished files.
		await seeText(page, "completed,");
		// Each file in its player: the video and the audio play, and each seeks to where it is sent.
		for (const kind of ["video", "audio"] as const) {
			const element = await page.waitForSelector(kind, { timeout: 20_000 });
			const played = await element?.evaluate(async (el) => {
				const media = el as HTMLMediaElement;
				if (media.readyState < 1) await new Promise((r) => media.addEventListener("loadedmetadata", r, { once: true }));
				const duration = media.duration;
				await media.play();
				// Playing: its position moves on.
				await new Promise<void>((resolve) => {
					const moved = () => {
						if (media.currentTime <= 0) return;
						media.removeEventListener("timeupdate", moved);
						resolve();
					};
					media.addEventListener("timeupdate", moved);
				});
				const playedTo = media.currentTime;
				const target = duration * 0.6;
				media.currentTime = target;
				await new Promise((r) => media.addEventListener("seeked", r, { once: true }));
				media.pause();
				return { duration, playedTo, target, at: media.currentTime, src: media.currentSrc };
			});
			expect(played?.duration, kind).toBeGreaterThan(2);
			expect(played?.playedTo, kind).toBeGreaterThan(0);
			expect(Math.abs((played?.at ?? 0) - (played?.target ?? -1)), kind).toBeLessThan(0.5);
			const media = log.responses.filter((r) => r.url === played?.src);
			expect(
				media.some((r) => r.status === 206 && /^bytes \d+-\d+\/\d+$/.test(r.headers["content-range"] ?? "")),
				kind,
			).toBe(true);
			expect(played?.src).not.toContain(account.key);
		}
		await seeText(page, "Meeting video (webm, 1280×720");
		await screenshot(page, "meeting-completed");

		// The meeting's webhooks show in the settings page's delivery history.
		await page.goto(`${botGateway()}/#/settings`);
		await seeText(page, "meeting.status_change", 30_000);
		await seeText(page, "delivered");
	});

	it("has a chat turn with the agent, its reply streamed into the page", async () => {
		const models = await apiAt(botGateway(), "PUT", "/user/models", {
			key: account.key,
			json: { base_url: `${modelServer()}/v1`, model: "e2e-model", api_key: "e2e-model-key-0123" },
		});
		expect(models.status).toBe(200);
		const marker = `dash-chat-${crypto.randomUUID()}`;
		await script(marker, [{ text: ["The budget ", "was approved ", "on Monday."] }]);
		await page.goto(`${botGateway()}/#/agent/chat`);
		await fill(page, "Message", `What happened to the budget? ${marker}`);
		await press(page, "Send");
		await seeText(page, "The budget was approved on Monday.");
		const chat = log.requests.find((r) => new URL(r.url).pathname === "/agent/chat" && r.method === "POST");
		expect(chat?.headers["x-api-key"]).toBe(account.key);
		await screenshot(page, "agent-chat");
	});

	it("ends with the key in no URL the page asked for and not in localStorage", async () => {
		expect(log.requests.length).toBeGreaterThan(10);
		expect(await leaksOf(page, log, account.key)).toEqual([]);
		expect(log.dialogs).toEqual([]);
		// Everything ran under the CSP without the browser having to block anything.
		expect(log.errors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
	});
});

describe("attacker-controlled names and text", () => {
	it("renders a participant, speaker and chat author named <img src=x onerror=alert(1)> as text", async () => {
		const xss = "<img src=x onerror=alert(1)>";
		const { key } = await newAccount(gateway());
		const { meetingId, bot } = await playedMeeting(key, { statuses: ["joining", "active"] });
		const now = () => new Date().toISOString();
		await bot.send({ type: "participant", event: "join", participant: { id: "p-1", name: xss }, timestamp: now() });
		await bot.send({
			type: "segment",
			segment: {
				segment_id: "x-1",
				speaker: xss,
				speaker_source: "caption",
				text: "<script>alert(2)</script><b>not bold</b>",
				start: 1,
				end: 2,
				language: "en",
				completed: true,
			},
		});
		await bot.send({
			type: "chat",
			message: { sender: xss, text: "<img src=y onerror=alert(3)>", timestamp: Date.now(), is_from_bot: false },
		});

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		// The name shows as written in the participants, as the transcript's speaker and as the chat author.
		const regions = {
			participants: 'section[aria-labelledby="participants-heading"]',
			transcript: 'section[aria-labelledby="transcript-heading"] .line-speaker',
			chat: 'ol[aria-label="Chat messages"]',
		};
		for (const [region, selector] of Object.entries(regions)) {
			await page
				.waitForFunction(
					(sel: string, text: string) => document.querySelector(sel)?.textContent?.includes(text),
					{ timeout: 15_000 },
					selector,
					xss,
				)
				.catch(async (err) => {
					await screenshot(page, "xss-failed");
					throw new Error(`the ${region} never showed the name as text`, { cause: err });
				});
		}
		await seeText(page, "<script>alert(2)</script><b>not bold</b>");
		await seeText(page, "<img src=y onerror=alert(3)>");
		await seeText(page, xss);
		await screenshot(page, "xss-as-text");
		const dom = await page.evaluate(() => ({
			images: Array.from(document.querySelectorAll("img")).map((i) => i.outerHTML),
			handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on")))
				.length,
			scripts: Array.from(document.querySelectorAll("script")).map((s) => s.src),
			bold: document.querySelectorAll("b").length,
		}));
		expect(dom.images).toEqual([]);
		expect(dom.handlers).toBe(0);
		expect(dom.scripts).toEqual([`${gateway()}/assets/app.js`]);
		expect(dom.bold).toBe(0);
		expect(log.dialogs).toEqual([]);
		expect(log.requests.filter((r) => /\/(x|y)$/.test(new URL(r.url).pathname))).toEqual([]);
		await page.close();
	});
});

/**
 * What the page lets a person do without a mouse, and what it shows at a phone's width: every
 * control has a name, nothing is wider than the screen, and signing in works by keys alone.
 */
async function accessibilityGaps(page: Page) {
	return page.evaluate(() => {
		const gaps: string[] = [];
		const shown = (el: Element) => (el as HTMLElement).offsetParent !== null;
		for (const el of Array.from(document.querySelectorAll("input, select, textarea"))) {
			if (!shown(el) || (el as HTMLInputElement).type === "hidden") continue;
			const named =
				((el as HTMLInputElement).labels?.length ?? 0) > 0 || el.getAttribute("aria-label") || el.getAttribute("aria-labelledby");
			if (!named) gaps.push(`unlabelled ${el.tagName.toLowerCase()} ${el.getAttribute("name") ?? ""}`);
		}
		for (const el of Array.from(document.querySelectorAll("button, a[href]"))) {
			if (shown(el) && !(el.textContent?.trim() || el.getAttribute("aria-label"))) gaps.push(`nameless ${el.tagName.toLowerCase()}`);
		}
		const width = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth > width)
			gaps.push(`page ${document.documentElement.scrollWidth}px wide on a ${width}px screen`);
		return gaps;
	});
}

/** Tabs until the focused element's accessible name (label, aria-label or text) is `name`. */
async function tabTo(page: Page, name: string) {
	for (let i = 0; i < 30; i += 1) {
		await page.keyboard.press("Tab");
		const focused = await page.evaluate(() => {
			const el = document.activeElement as HTMLInputElement | null;
			if (!el) return "";
			return el.labels?.[0]?.textContent?.trim() || el.getAttribute("aria-label") || el.textContent?.trim() || "";
		});
		if (focused === name) return;
	}
	throw new Error(`Tab never reached "${name}"`);
}

describe("a meeting waiting for a bot host", () => {
	it("says so, with a generic reason and never a host's id or words, and the time waited ticking, until a host claims it", async () => {
		const xss = "<img src=z onerror=alert(4)>";
		// A host whose own words are hostile reports first: the room reads the reports when it puts the ticket out.
		const hostId = `e2e-busy-${Date.now()}`;
		const minted = await api("POST", "/admin/bot-hosts", { admin: true, json: { host_id: hostId } });
		expect(minted.status).toBe(201);
		const report = {
			host_id: hostId,
			version: "e2e",
			slots: 1,
			running: 1,
			launching: 0,
			free: 0,
			draining: false,
			mem_available_mb: 8000,
			load1: 0.2,
			limited_by: ["cpu"],
			refusing: `CPU pressure 91% ${xss}`,
		};
		const sent = await fetch(`${gateway()}/internal/bot-hosts/reports`, {
			method: "POST",
			headers: { authorization: `Bearer ${minted.body.credential}`, "content-type": "application/json" },
			body: JSON.stringify(report),
		});
		expect(sent.status).toBe(204);
		const { key } = await newAccount(gateway());
		const created = await api("POST", "/bots", { key, json: { platform: "google_meet", native_meeting_id: nativeId("google_meet") } });
		expect(created.status).toBe(201);
		const meetingId = created.body.id as number;
		const placement = await eventually(
			"data.placement",
			async () => (await api<{ data: { placement?: { detail: string } } }>("GET", `/meetings/${meetingId}`, { key })).body.data.placement,
		);

		const { page, log } = await openPage(browser, `${gateway()}/`);
		await signIn(page, key);
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await seeText(page, "Waiting for a bot host…");
		// The user reads the generic reason; a host's id and its own words stay with operators.
		await seeText(page, placement.detail);
		// biome-ignore lint/performance/useDomNodeTextContent: the text as rendered is what the user reads
		const shown = await page.evaluate(() => document.body.innerText);
		expect(shown).not.toContain(hostId);
		expect(shown).not.toContain("CPU pressure");
		const waited = () => page.$eval('[data-testid="placement-waited"]', (e) => e.textContent ?? "");
		const first = await waited();
		expect(first).toMatch(/^\d+ s$|^\d+ min \d\d s$/);
		// It ticks in the page, from `since`, with no request for it.
		await page.waitForFunction(
			(text: string) => document.querySelector('[data-testid="placement-waited"]')?.textContent !== text,
			{},
			first,
		);
		await screenshot(page, "waiting-for-a-bot-host");
		const dom = await page.evaluate(() => ({
			images: document.querySelectorAll("img").length,
			handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on")))
				.length,
		}));
		expect(dom).toEqual({ images: 0, handlers: 0 });
		expect(log.dialogs).toEqual([]);

		// A host claims it and its bot reports in: the wait is over.
		const bot = await playBot(await spawnFor(meetingId));
		await bot.send({ type: "status", status: "joining", timestamp: new Date().toISOString() });
		await page.waitForFunction(() => !document.querySelector('[data-testid="placement"]'), { timeout: 15_000 });
		await page.close();
	});
});

describe("by keyboard, at a phone's width", () => {
	it("signs in with keys alone, and every page names its controls and fits a 390 px screen", async () => {
		const { key } = await newAccount(gateway());
		const created = await api("POST", "/bots", { key, json: { platform: "google_meet", native_meeting_id: nativeId("google_meet") } });
		expect(created.status).toBe(201);
		const meetingId = created.body.id as number;

		const { page } = await openPage(browser, `${gateway()}/`);
		await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
		// A mobile viewport reloads the page in Chromium; load it again so nothing reloads under the keys.
		await page.goto(`${gateway()}/`, { waitUntil: "load" });
		// The sign-in page moves focus to its heading once mounted; tabbing starts from there, as a person's would.
		await page.waitForFunction(() => document.activeElement?.tagName === "H1");
		await tabTo(page, "API key");
		await page.keyboard.type(key);
		await page.keyboard.press("Enter");
		await seeText(page, "Your meetings");
		await seeText(page, String(created.body.native_meeting_id));
		expect(await accessibilityGaps(page)).toEqual([]);
		await screenshot(page, "meetings-phone");

		for (const route of [`#/meetings/${meetingId}`, "#/settings", "#/agent/chat", "#/agent/routines"]) {
			await page.goto(`${gateway()}/${route}`);
			await page.waitForNetworkIdle({ idleTime: 300 });
			expect(await accessibilityGaps(page), route).toEqual([]);
		}
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await seeText(page, "Stop the bot");
		await screenshot(page, "meeting-phone");
		await page.close();
	});
});
