/**
 * Clicks and typing from the bot's display (bot/os-input.ts) in a bot's real headed Chromium:
 * the pointer reaches an element along a path of many positions and the click lands on it, below
 * Chromium's toolbar and after scrolling; names with accents, capitals, emoji and CJK come out as
 * written; and the measurement the sandbox's Meet check rests on (runtime.js): a DevTools click
 * brings the pointer in one mousemove, the display's in many.
 */
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { pageInput, pointerPath, toScreen } from "../bot/os-input.ts";
import type { PageInput } from "../drivers/types.ts";

/** Buttons spread over a page taller than the window, an input, and a record of what the page saw. */
const PAGE = `<!doctype html><html><body style="margin:0;height:2600px">
<button id="top-left" style="position:absolute;left:8px;top:6px;width:90px;height:30px">a</button>
<button id="middle" style="position:absolute;left:600px;top:380px;width:60px;height:24px">b</button>
<button id="bottom-right" style="position:absolute;left:1150px;top:760px;width:110px;height:36px">c</button>
<button id="below-the-fold" style="position:absolute;left:300px;top:2400px;width:80px;height:30px">d</button>
<input id="name" style="position:absolute;left:400px;top:120px;width:300px">
<script>
window.seen = { moves: [], clicks: [], keys: [] };
addEventListener("pointermove", (e) => { for (const c of e.getCoalescedEvents?.() ?? [e]) seen.moves.push([c.clientX, c.clientY, performance.now()]); }, true);
addEventListener("pointerdown", (e) => { seen.pressedAt = performance.now(); }, true);
addEventListener("click", (e) => {
	const r = e.target.getBoundingClientRect();
	const before = seen.moves.filter((m) => m[2] <= seen.pressedAt && seen.pressedAt - m[2] <= 3000);
	seen.clicks.push({ id: e.target.id, trusted: e.isTrusted, inside: e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom, positions: new Set(before.map((m) => m[0] + "," + m[1])).size });
	seen.moves = [];
}, true);
addEventListener("keydown", (e) => seen.keys.push({ key: e.key, trusted: e.isTrusted }), true);
</script></body></html>`;

interface Seen {
	clicks: { id: string; trusted: boolean; inside: boolean; positions: number }[];
	keys: { key: string; trusted: boolean }[];
}

const seen = (page: Page) => page.evaluate(() => (window as unknown as { seen: Seen }).seen);

describe("input from the bot's display", () => {
	let bot: BotBrowser;
	let page: Page;
	let input: PageInput;

	beforeAll(async () => {
		bot = await launchBotBrowser(
			"os-input-test",
			{
				executablePath: "/usr/bin/chromium",
				extraFlags: [],
				fakeDevices: true,
				sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
			},
			"Notetaker Zoë 🤖",
		);
		page = await bot.browser.newPage();
		input = pageInput(page, bot.display);
	});
	afterAll(async () => {
		await bot?.close();
	});

	const fresh = async () => {
		await page.setContent(PAGE);
		await page.evaluate(() => window.scrollTo(0, 0));
	};

	it("moves the real pointer to each element along a path and clicks inside it, below the toolbar and after scrolling", async () => {
		expect(input.kind).toBe("os");
		await fresh();
		// The window really has a tab strip and toolbar above the page: the mapping must account for it.
		const window = await page.evaluate(() => ({ outer: outerHeight, inner: innerHeight }));
		expect(window.outer - window.inner).toBeGreaterThan(40);
		for (const id of ["top-left", "middle", "bottom-right", "below-the-fold"]) {
			const element = await page.$(`#${id}`);
			if (!element) throw new Error(`no #${id}`);
			await input.click(element);
		}
		// X delivers the last click to the page a moment after xdotool returns.
		await expect.poll(async () => (await seen(page)).clicks.length).toBe(4);
		const { clicks } = await seen(page);
		expect(clicks.map((c) => [c.id, c.trusted, c.inside])).toEqual([
			["top-left", true, true],
			["middle", true, true],
			["bottom-right", true, true],
			["below-the-fold", true, true],
		]);
		for (const click of clicks) expect(click.positions).toBeGreaterThanOrEqual(5);
	});

	it("corrects its aim from where the page saw the pointer land when the window's geometry misleads it", async () => {
		await fresh();
		// As if an info bar 40 px high had come above the page after the window was measured.
		await page.evaluate(() => {
			const real = outerHeight;
			Object.defineProperty(window, "outerHeight", { get: () => real - 40, configurable: true });
		});
		const button = await page.$("#middle");
		if (!button) throw new Error("no #middle");
		await input.click(button);
		await expect.poll(async () => (await seen(page)).clicks.map((c) => [c.id, c.inside])).toEqual([["middle", true]]);
	});

	it("types a name with accents, capitals beyond ASCII, emoji and CJK exactly, one real key per character", async () => {
		await fresh();
		const field = await page.$("#name");
		if (!field) throw new Error("no #name");
		// The launch put the bot name's characters on keys; the second name needs new ones now.
		for (const name of ["Notetaker Zoë 🤖", "Ünïcødé Éric — 日本語の会議 Ærø"]) {
			await page.evaluate(() => {
				(document.querySelector("#name") as HTMLInputElement).value = "";
				(window as unknown as { seen: Seen }).seen.keys = [];
			});
			await input.click(field);
			await input.type(name);
			expect(await field.evaluate((e) => (e as HTMLInputElement).value)).toBe(name);
			const { keys } = await seen(page);
			const typed = keys.filter((k) => k.key !== "Shift");
			expect(typed).toHaveLength([...name].length);
			expect(typed.every((k) => k.trusted)).toBe(true);
		}
		// Typing again over what is there: select all, then the new text replaces it.
		await input.click(field);
		await input.press("SelectAll");
		await input.type("Ada");
		expect(await field.evaluate((e) => (e as HTMLInputElement).value)).toBe("Ada");
	});

	it("brings the pointer along many positions, where a DevTools click brings it in one (the sandbox's Meet check rests on this)", async () => {
		await fresh();
		const button = await page.$("#middle");
		if (!button) throw new Error("no #middle");
		await button.click();
		await input.click(button);
		const [devtools, os] = (await seen(page)).clicks;
		expect(devtools).toMatchObject({ id: "middle", trusted: true });
		expect(devtools?.positions).toBeLessThanOrEqual(1);
		expect(os?.positions).toBeGreaterThanOrEqual(5);
	});

	it("refuses to aim at an element inside a frame, whose viewport is not the window's", async () => {
		await page.setContent(
			`<iframe srcdoc="<button id=inner style='margin:200px'>x</button>" style="position:absolute;left:300px;top:100px;width:600px;height:500px"></iframe>`,
		);
		const frame = await (await page.$("iframe"))?.contentFrame();
		const inner = await frame?.waitForSelector("#inner");
		if (!inner) throw new Error("no button in the frame");
		await expect(input.click(inner)).rejects.toThrow("the display's pointer clicks only elements of the page itself, not of its frames");
	});

	it("falls back to DevTools events without a display: clicks, types and selects all", async () => {
		await fresh();
		const fallback = pageInput(page, null);
		expect(fallback.kind).toBe("devtools");
		const field = await page.$("#name");
		if (!field) throw new Error("no #name");
		await fallback.click(field);
		await fallback.type("Notetaker Zoë 🤖");
		expect(await field.evaluate((e) => (e as HTMLInputElement).value)).toBe("Notetaker Zoë 🤖");
		await fallback.press("SelectAll");
		await fallback.type("Bo");
		expect(await field.evaluate((e) => (e as HTMLInputElement).value)).toBe("Bo");
	});
});

describe("a hand's path and the window's geometry", () => {
	let seed = 7;
	const random = () => {
		seed = (seed * 16807) % 2147483647;
		return seed / 2147483647;
	};

	it("ends exactly on the target through at least ten bent, jittered steps, none of them a jump", () => {
		const from = { x: 640, y: 450 };
		const to = { x: 1180, y: 820 };
		const path = pointerPath(from, to, random);
		expect(path.length).toBeGreaterThanOrEqual(10);
		expect(path.at(-1)).toMatchObject({ ...to, pauseMs: 0 });
		const distance = Math.hypot(to.x - from.x, to.y - from.y);
		const points = [from, ...path];
		const jumps = points.slice(1).map((p, i) => Math.hypot(p.x - (points[i]?.x ?? 0), p.y - (points[i]?.y ?? 0)));
		expect(Math.max(...jumps)).toBeLessThan(distance / 3);
		// Off the straight line somewhere: a wrist bends the path.
		const offLine = path.map((p) => Math.abs((to.x - from.x) * (from.y - p.y) - (from.x - p.x) * (to.y - from.y)) / distance);
		expect(Math.max(...offLine)).toBeGreaterThan(2);
		expect(path.slice(0, -1).every((p) => p.pauseMs > 0)).toBe(true);
	});

	it("maps a viewport point to the screen below the toolbar, inside side borders, scaled by the pixel ratio", () => {
		const window = { screenX: 0, screenY: 0, outerWidth: 1280, outerHeight: 900, innerWidth: 1280, innerHeight: 813, devicePixelRatio: 1 };
		expect(toScreen(window, { x: 10, y: 20 })).toEqual({ x: 10, y: 107 });
		const framed = {
			screenX: 100,
			screenY: 50,
			outerWidth: 1288,
			outerHeight: 900,
			innerWidth: 1280,
			innerHeight: 800,
			devicePixelRatio: 2,
		};
		expect(toScreen(framed, { x: 10, y: 20 })).toEqual({ x: 228, y: 332 });
	});
});
