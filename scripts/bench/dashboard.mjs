import puppeteer from "puppeteer-core";
import { sendSimulatedBot } from "./simulated-bot.mjs";

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (values) =>
	percentile(
		[...values].sort((a, b) => a - b),
		50,
	);
const LOADS = 9;
const SEGMENTS = 60;

function launch() {
	return puppeteer.launch({
		executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
		headless: true,
		args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
		defaultViewport: { width: 1280, height: 900 },
	});
}

/** A tab in a fresh profile (empty cache) that is already signed in: the key is in its sessionStorage before the page runs. */
async function signedInTab(browser, key) {
	const context = await browser.createBrowserContext();
	const page = await context.newPage();
	await page.evaluateOnNewDocument((k) => sessionStorage.setItem("meetbot.key", k), key);
	return { context, page };
}

/**
 * One cold load of `#/meetings`: bytes on the wire (the dashboard's own files, and everything
 * until the list shows, API answers included) and navigation start → the list's rows rendered.
 */
async function coldLoad(browser, base, key) {
	const { context, page } = await signedInTab(browser, key);
	const cdp = await page.createCDPSession();
	await cdp.send("Network.enable");
	const urls = new Map();
	const bytes = { files: 0, total: 0 };
	cdp.on("Network.responseReceived", (e) => urls.set(e.requestId, new URL(e.response.url).pathname));
	cdp.on("Network.loadingFinished", (e) => {
		const path = urls.get(e.requestId) ?? "";
		bytes.total += e.encodedDataLength;
		if (path === "/" || path.startsWith("/assets/")) bytes.files += e.encodedDataLength;
	});
	// Noted in the page from its first moment, so the figure does not depend on when the bench looks.
	await page.evaluateOnNewDocument(() => {
		new MutationObserver((_, observer) => {
			if (!document.querySelector('table[aria-label="Meetings"] tbody tr')) return;
			window.__listAt = performance.now();
			observer.disconnect();
		}).observe(document, { childList: true, subtree: true });
	});
	await page.goto(`${base}/#/meetings`);
	const rendered = await page.waitForFunction(() => window.__listAt ?? false, { timeout: 30_000 });
	// performance.now() counts from the navigation's start.
	const ms = await rendered.jsonValue();
	const snapshot = { ...bytes, ms };
	await context.close();
	return snapshot;
}

/** Segment sent on the bot channel → its line rendered on the meeting page (a MutationObserver in the page). */
async function segmentToLine(browser, { base, key, recorder }) {
	const code = `ben-dash-${Math.random().toString(36).slice(2, 5).padEnd(3, "x")}`;
	const bot = await sendSimulatedBot({ base, key, recorder, code });
	const { context, page } = await signedInTab(browser, key);
	const shown = new Map();
	const waiting = new Map();
	await page.exposeFunction("__lineShown", (text, at) => {
		if (shown.has(text)) return;
		shown.set(text, at);
		waiting.get(text)?.();
	});
	await page.goto(`${base}/#/meetings/${bot.meeting.id}`);
	await page.waitForSelector(".transcript", { timeout: 30_000 });
	await page.waitForFunction(() => document.querySelector('.feed-state[data-state="live"]') !== null, { timeout: 30_000 });
	await page.evaluate(() => {
		const report = () => {
			for (const line of document.querySelectorAll(".transcript-line .line-text")) window.__lineShown(line.textContent ?? "", Date.now());
		};
		new MutationObserver(report).observe(document.body, { childList: true, subtree: true, characterData: true });
	});
	const latencies = [];
	for (let i = 0; i < SEGMENTS; i++) {
		const text = `segment ${i}`;
		const appeared = new Promise((resolve) => waiting.set(text, resolve));
		const sentAt = Date.now();
		// Timed to the page, not to the ack (which waits for D1).
		void bot.say(`dash-${i}`, i);
		await Promise.race([appeared, new Promise((_, reject) => setTimeout(() => reject(new Error(`${text} never rendered`)), 10_000))]);
		latencies.push(shown.get(text) - sentAt);
	}
	bot.ws.close();
	await fetch(`${base}/bots/google_meet/${code}`, { method: "DELETE", headers: { "X-API-Key": key } });
	await context.close();
	return latencies.sort((a, b) => a - b);
}

/** The dashboard in headless Chromium: a cold first load, and a spoken segment → its line on the page. */
export async function benchDashboard(ctx) {
	const { base, key } = ctx;
	console.log("\n## Dashboard in headless Chromium (through wrangler dev)");
	// The list needs rows to render: two plans.
	for (const title of ["Bench standup", "Bench review"]) {
		await fetch(`${base}/meetings`, {
			method: "POST",
			headers: { "X-API-Key": key, "content-type": "application/json" },
			body: JSON.stringify({ title }),
		});
	}
	const browser = await launch();
	try {
		const loads = [];
		for (let i = 0; i < LOADS; i++) loads.push(await coldLoad(browser, base, key));
		console.log(
			`first load:               ${(median(loads.map((l) => l.files)) / 1024).toFixed(1)} KB of dashboard files on the wire, ${(median(loads.map((l) => l.total)) / 1024).toFixed(1)} KB with the API answers (goal: well under 200 KB)`,
		);
		console.log(`navigation → meetings list rendered: median ${median(loads.map((l) => l.ms)).toFixed(0)} ms   (${LOADS} cold loads)`);
		const lines = await segmentToLine(browser, ctx);
		console.log(
			`segment sent → line rendered: p50 ${percentile(lines, 50).toFixed(0)} ms   p95 ${percentile(lines, 95).toFixed(0)} ms   (${lines.length} segments)`,
		);
	} finally {
		await browser.close();
	}
}
