/**
 * The dashboard in real headless Chromium (the system `chromium`, or CHROMIUM_PATH), driven by
 * puppeteer-core: one browser per test file, a page per scenario, everything the page asks the
 * network for recorded, so a test can say what never left the page (a key in a URL).
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import puppeteer, { type Browser, type ElementHandle, type Page } from "puppeteer-core";

/** Screenshots are kept as test artifacts here (gitignored). */
export const ARTIFACTS = path.resolve(import.meta.dirname, "../../.local/artifacts/dashboard");

export function launchBrowser(): Promise<Browser> {
	return puppeteer.launch({
		executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
		headless: true,
		// Tests run as root in a container: Chromium's own sandbox needs user namespaces it may not have.
		args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"],
		defaultViewport: { width: 1280, height: 900 },
	});
}

/** What a page did on the network and in its console while a test drove it. */
export interface PageLog {
	/** Every HTTP request URL, with the request headers it carried. */
	requests: { url: string; method: string; headers: Record<string, string> }[];
	/** Every response: URL, status and headers (for Range checks). */
	responses: { url: string; status: number; headers: Record<string, string> }[];
	/** WebSocket URLs the page opened (puppeteer's request events do not include them). */
	sockets: string[];
	/** Messages of alert/confirm/prompt dialogs; each is dismissed. */
	dialogs: string[];
	/** Uncaught exceptions and console errors, CSP reports among them. */
	errors: string[];
}

export async function openPage(browser: Browser, url: string): Promise<{ page: Page; log: PageLog }> {
	const page = await browser.newPage();
	const log: PageLog = { requests: [], responses: [], sockets: [], dialogs: [], errors: [] };
	page.on("request", (r) => log.requests.push({ url: r.url(), method: r.method(), headers: r.headers() }));
	page.on("response", (r) => log.responses.push({ url: r.url(), status: r.status(), headers: r.headers() }));
	page.on("dialog", (d) => {
		log.dialogs.push(d.message());
		void d.dismiss();
	});
	page.on("pageerror", (e) => log.errors.push(e instanceof Error ? e.message : String(e)));
	page.on("console", (m) => {
		if (m.type() === "error") log.errors.push(m.text());
	});
	const cdp = await page.createCDPSession();
	await cdp.send("Network.enable");
	cdp.on("Network.webSocketCreated", (e) => log.sockets.push(e.url));
	await page.goto(url, { waitUntil: "load" });
	return { page, log };
}

/**
 * Saves `<name>.png` under ARTIFACTS: the whole page, or with `fullPage: false` what a laptop
 * screen shows. Each secret in `hiding` (a key the page shows its user) is first cut to its
 * first 8 characters in the page's text and inputs, so no artifact holds one.
 */
export async function screenshot(page: Page, name: string, { fullPage = true, hiding = [] as string[] } = {}): Promise<string> {
	if (hiding.length > 0) {
		const shown = await page.evaluate((secrets: string[]) => {
			const cut = (text: string) => secrets.reduce((t, secret) => t.replaceAll(secret, `${secret.slice(0, 8)}…`), text);
			const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
			for (let node = walker.nextNode(); node; node = walker.nextNode()) node.textContent = cut(node.textContent ?? "");
			const boxes = Array.from(document.querySelectorAll("input, textarea")) as HTMLInputElement[];
			for (const box of boxes) box.value = cut(box.value);
			const left = [document.body.textContent ?? "", ...boxes.map((box) => box.value)];
			return secrets.some((secret) => left.some((text) => text.includes(secret)));
		}, hiding);
		if (shown) throw new Error(`screenshot ${name}: a secret is still on the page`);
	}
	mkdirSync(ARTIFACTS, { recursive: true });
	const file = path.join(ARTIFACTS, `${name}.png`);
	await page.screenshot({ path: file, fullPage });
	return file;
}

/**
 * The form control whose `<label>` reads `label`, or starts with it and a space (a checkbox
 * label with a detail after it): its `for` target, or the control inside it.
 */
export async function field(page: Page, label: string, timeout = 15_000): Promise<ElementHandle<Element>> {
	const handle = await page.waitForFunction(
		(text: string) => {
			for (const l of Array.from(document.querySelectorAll("label"))) {
				const words = l.textContent?.trim().replace(/\s+/g, " ") ?? "";
				if (words !== text && !words.startsWith(`${text} `)) continue;
				const control = l.htmlFor ? document.getElementById(l.htmlFor) : l.querySelector("input, select, textarea");
				if (control) return control;
			}
			return null;
		},
		{ timeout },
		label,
	);
	return handle as ElementHandle<Element>;
}

/** Types into a labelled field, replacing what it held. */
export async function fill(page: Page, label: string, value: string): Promise<void> {
	const control = await field(page, label);
	await control.click({ count: 3 });
	await control.evaluate((el) => {
		(el as HTMLInputElement).value = "";
	});
	await control.type(value);
}

/** Ticks or unticks a labelled checkbox. */
export async function tick(page: Page, label: string, checked = true): Promise<void> {
	const box = await field(page, label);
	if ((await box.evaluate((el) => (el as HTMLInputElement).checked)) !== checked) await box.click();
}

/** Clicks the button whose accessible name is `name`. */
export async function press(page: Page, name: string, timeout = 15_000): Promise<void> {
	await page
		.locator(`::-p-aria([name=${JSON.stringify(name)}][role="button"])`)
		.setTimeout(timeout)
		.click();
}

/** Elements and handlers that a meeting's text could only have made by being parsed as HTML: images, `on…` attributes, bold. */
export function injectedMarkup(page: Page) {
	return page.evaluate(() => ({
		images: document.querySelectorAll("img").length,
		handlers: Array.from(document.querySelectorAll("*")).filter((e) => Array.from(e.attributes).some((a) => a.name.startsWith("on")))
			.length,
		bold: document.querySelectorAll("b").length,
	}));
}

/** Signs the dashboard in with `key` on its sign-in page and waits for the shell (its Sign out). */
export async function signIn(page: Page, key: string): Promise<void> {
	await fill(page, "API key", key);
	await press(page, "Sign in");
	await seeText(page, "Sign out");
}

/** Waits until the page's visible text contains `text` (or matches it). */
export async function seeText(page: Page, text: string | RegExp, timeout = 15_000): Promise<void> {
	const source = typeof text === "string" ? { s: text } : { r: text.source, f: text.flags };
	try {
		await page.waitForFunction(
			(t: { s?: string; r?: string; f?: string }) => {
				// biome-ignore lint/performance/useDomNodeTextContent: what the user sees, without hidden nodes, is the point
				const body = document.body.innerText;
				return t.s !== undefined ? body.includes(t.s) : new RegExp(t.r ?? "", t.f).test(body);
			},
			{ timeout, polling: 100 },
			source,
		);
	} catch (err) {
		const body = await visibleText(page).catch(() => "(page gone)");
		throw new Error(`never saw ${String(text)} on the page; it shows:\n${body.slice(0, 2000)}`, { cause: err });
	}
}

/** The page's text as a user sees it (hidden elements left out). */
export function visibleText(page: Page): Promise<string> {
	// biome-ignore lint/performance/useDomNodeTextContent: what the user sees, without hidden nodes, is the point
	return page.evaluate(() => document.body.innerText);
}

/** Both storages of the page's origin, as the page itself sees them. */
export function storage(page: Page): Promise<{ local: Record<string, string>; session: Record<string, string> }> {
	return page.evaluate(() => ({ local: { ...localStorage }, session: { ...sessionStorage } }));
}

/**
 * Records, in the page, when each transcript line's text first shows (`Date.now()`, the same
 * clock as the test's and the sandbox's): a MutationObserver, so nothing is missed between polls.
 */
export async function watchTranscriptLines(page: Page): Promise<void> {
	await page.evaluate(() => {
		const w = window as unknown as { __lineSeen?: Record<string, number> };
		if (w.__lineSeen) return;
		const seen: Record<string, number> = {};
		w.__lineSeen = seen;
		const note = () => {
			for (const line of Array.from(document.querySelectorAll(".transcript-line"))) {
				const state = line.getAttribute("data-state") ?? "";
				const text = `${state}|${line.querySelector(".line-speaker")?.textContent ?? ""}|${line.querySelector(".line-text")?.textContent ?? ""}`;
				seen[text] ??= Date.now();
			}
		};
		new MutationObserver(note).observe(document.body, { childList: true, subtree: true, characterData: true });
		note();
	});
}

/** Each line seen so far: its state, speaker, text, and when it first showed. */
export async function transcriptLinesSeen(page: Page): Promise<{ state: string; speaker: string; text: string; at: number }[]> {
	const seen = await page.evaluate(() => (window as unknown as { __lineSeen?: Record<string, number> }).__lineSeen ?? {});
	return Object.entries(seen).map(([key, at]) => {
		const [state = "", speaker = "", ...text] = key.split("|");
		return { state, speaker, text: text.join("|"), at };
	});
}
