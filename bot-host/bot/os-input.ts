/**
 * Clicks and typing from the operating system, as a person's mouse and keyboard make them. A
 * DevTools click puts the pointer on an element's centre out of nowhere (one mousemove, at the
 * point of the click: measured, bot-host/test/os-input.test.ts), and Google Meet refuses bots
 * whose join comes that way: the maintained bots that join Meet hardest click and type its join
 * screen through the X server instead (Vexa's googlemeet/humanized/x11Input.ts, Attendee's
 * web_bot_adapter/x11_input.py). Here xdotool (XTEST) on the bot's own display moves the real
 * pointer along a curved, eased path with a little jitter, lands inside the element, rests,
 * presses and releases; and types key by key at a person's pace, every character on a key of
 * its own first (x11-keymap.ts). Without xdotool a bot gets DevTools input, and /health says so.
 */
import { execFile } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import type { ElementHandle, Page } from "puppeteer-core";
import type { InputKey, PageInput } from "../drivers/types.ts";
import type { VirtualDisplay } from "./display.ts";
import { findOnPath } from "./search-path.ts";
import { bindCharacters, keysymOf } from "./x11-keymap.ts";

export interface Point {
	x: number;
	y: number;
}

/** One move of the pointer along a path, and the pause after it. */
export interface PathStep extends Point {
	pauseMs: number;
}

/** What the page knows of its window: where it is on the screen and how much of it is the page. */
export interface WindowGeometry {
	screenX: number;
	screenY: number;
	outerWidth: number;
	outerHeight: number;
	innerWidth: number;
	innerHeight: number;
	devicePixelRatio: number;
}

/** What /health names when bots get DevTools input only, or null when xdotool is on PATH. */
export function osInputMissing(searchPath?: string): string | null {
	return findOnPath("xdotool", searchPath)
		? null
		: "xdotool not found on PATH (install the Debian package xdotool): bots click and type with DevTools events, which Google Meet tells from a person's and may refuse";
}

/** The input a bot's drivers get: the operating system's on the bot's display where xdotool is installed, else DevTools events. */
export function pageInput(page: Page, display: VirtualDisplay | null, random: () => number = Math.random): PageInput {
	const xdotool = display ? findOnPath("xdotool") : null;
	return display && xdotool ? new OsInput(page, display, xdotool, random) : new DevToolsInput(page);
}

/**
 * A hand's path from `from` to `to`: one gentle bend to a random side, the speed rising and
 * falling (minimum-jerk easing), a pixel or two of tremor on the way, and exactly `to` at the end.
 * Longer for a further target: 0.2 to 0.75 s in all, a quick but ordinary hand.
 */
export function pointerPath(from: Point, to: Point, random: () => number = Math.random): PathStep[] {
	const dx = to.x - from.x;
	const dy = to.y - from.y;
	const distance = Math.hypot(dx, dy);
	const count = Math.round(Math.min(32, Math.max(10, distance / 25)));
	const durationMs = Math.min(650, 160 + distance * 0.5) * (0.85 + random() * 0.3);
	const bend = (random() - 0.5) * 0.4 * distance;
	const control = distance > 0 ? { x: from.x + dx / 2 - (dy / distance) * bend, y: from.y + dy / 2 + (dx / distance) * bend } : from;
	const steps: PathStep[] = [];
	for (let i = 1; i <= count; i++) {
		const t = i / count;
		const s = 10 * t ** 3 - 15 * t ** 4 + 6 * t ** 5;
		const last = i === count;
		const tremor = () => (last ? 0 : (random() - 0.5) * 3);
		steps.push({
			x: Math.round((1 - s) ** 2 * from.x + 2 * (1 - s) * s * control.x + s ** 2 * to.x + tremor()),
			y: Math.round((1 - s) ** 2 * from.y + 2 * (1 - s) * s * control.y + s ** 2 * to.y + tremor()),
			pauseMs: last ? 0 : Math.round((durationMs / count) * (0.7 + random() * 0.6)),
		});
	}
	return steps;
}

/**
 * The screen point of a point in the page's viewport. What the window has beyond its viewport is
 * its frame and toolbars: side borders split evenly, the rest above the page (tab strip, address
 * bar, any info bar). Without a window manager (Xvfb here) there is no frame.
 */
export function toScreen(window: WindowGeometry, point: Point): Point {
	const border = Math.max(0, (window.outerWidth - window.innerWidth) / 2);
	const above = Math.max(0, window.outerHeight - window.innerHeight - border);
	const scale = window.devicePixelRatio || 1;
	return { x: Math.round((window.screenX + border + point.x) * scale), y: Math.round((window.screenY + above + point.y) * scale) };
}

/** Where the page last saw the pointer, kept by a listener under a name it does not enumerate. */
const POINTER_SEEN = "__botPointerSeen";
const KEYS: Record<Exclude<InputKey, "SelectAll">, string> = { Enter: "Return", Tab: "Tab", Escape: "Escape", Backspace: "BackSpace" };
/** How far (CSS px) the page may see the pointer from where it was sent before the path is corrected. */
const LANDING_SLACK = 2;

class OsInput implements PageInput {
	readonly kind = "os";
	private readonly page: Page;
	private readonly display: VirtualDisplay;
	private readonly xdotool: string;
	private readonly random: () => number;

	constructor(page: Page, display: VirtualDisplay, xdotool: string, random: () => number) {
		this.page = page;
		this.display = display;
		this.xdotool = xdotool;
		this.random = random;
	}

	async click(element: ElementHandle<Element>): Promise<void> {
		await this.page.bringToFront();
		await this.watchPointer();
		let box = await boxOf(element);
		const inView =
			box.left >= 0 && box.top >= 0 && box.left + box.width <= box.window.innerWidth && box.top + box.height <= box.window.innerHeight;
		if (!inView) {
			await element.scrollIntoView();
			box = await boxOf(element);
		}
		if (box.width <= 0 || box.height <= 0) throw new Error("the element to click has no size on the page");
		// A frame's own viewport is not the window's: its elements would be missed, so none is clicked from here.
		if (!box.inMainFrame) throw new Error("the display's pointer clicks only elements of the page itself, not of its frames");
		// Somewhere inside, never the exact centre a script would pick.
		const target = {
			x: box.left + box.width * (0.3 + this.random() * 0.4),
			y: box.top + box.height * (0.3 + this.random() * 0.4),
		};
		let screen = toScreen(box.window, target);
		await this.move(pointerPath(await this.pointer(), screen, this.random));
		// The page says where the pointer arrived; a toolbar the geometry did not show (an info bar
		// that came meanwhile) moves it, and the last stretch makes up the difference.
		for (let correction = 0; ; correction++) {
			const seen = await this.pointerSeen(target);
			if (!seen || (Math.abs(seen.x - target.x) <= LANDING_SLACK && Math.abs(seen.y - target.y) <= LANDING_SLACK)) break;
			if (correction === 2)
				throw new Error(
					`the pointer landed at (${Math.round(seen.x)}, ${Math.round(seen.y)}) in the page, not on the element at (${Math.round(target.x)}, ${Math.round(target.y)})`,
				);
			const scale = box.window.devicePixelRatio || 1;
			const corrected = { x: Math.round(screen.x + (target.x - seen.x) * scale), y: Math.round(screen.y + (target.y - seen.y) * scale) };
			await this.move(pointerPath(screen, corrected, this.random).slice(-3));
			screen = corrected;
		}
		await sleep(40 + this.random() * 80);
		await this.xdotoolRun(["mousedown", "1", "sleep", seconds(50 + this.random() * 70), "mouseup", "1"]);
	}

	async type(text: string): Promise<void> {
		await this.page.bringToFront();
		let rest = text;
		while (rest) {
			const { typeable, bound } = await bindCharacters(this.display, rest);
			if (!typeable) throw new Error("the bot's display has no spare key left for the next character");
			// Chromium reads a changed keyboard map when the X server announces it, before it is used.
			if (bound > 0) await sleep(300);
			const keys = [...typeable].flatMap((char, i) => [
				...(i > 0 ? ["sleep", seconds(50 + this.random() * 90)] : []),
				"key",
				keyName(char),
			]);
			await this.xdotoolRun(keys);
			rest = rest.slice(typeable.length);
		}
	}

	async press(key: InputKey): Promise<void> {
		await this.page.bringToFront();
		await this.xdotoolRun(["key", key === "SelectAll" ? "ctrl+a" : KEYS[key]]);
	}

	private async move(path: PathStep[]): Promise<void> {
		await this.xdotoolRun(
			path.flatMap((step) => ["mousemove", String(step.x), String(step.y), ...(step.pauseMs > 0 ? ["sleep", seconds(step.pauseMs)] : [])]),
		);
	}

	private async pointer(): Promise<Point> {
		const shell = await this.xdotoolRun(["getmouselocation", "--shell"]);
		return { x: Number(/^X=(-?\d+)/m.exec(shell)?.[1] ?? 0), y: Number(/^Y=(-?\d+)/m.exec(shell)?.[1] ?? 0) };
	}

	/** From now on, remember where the page sees the pointer move, so a landing can be checked (afresh for every click). */
	private watchPointer(): Promise<void> {
		return this.page.evaluate((key: string) => {
			type Seen = { x: number | null; y: number | null; listener: (e: MouseEvent) => void };
			const previous = (window as unknown as Record<string, Seen | undefined>)[key];
			if (previous) removeEventListener("mousemove", previous.listener, true);
			const seen: Seen = {
				x: null,
				y: null,
				listener: (e) => {
					seen.x = e.clientX;
					seen.y = e.clientY;
				},
			};
			Object.defineProperty(window, key, { value: seen, enumerable: false, configurable: true });
			addEventListener("mousemove", seen.listener, { capture: true, passive: true });
		}, POINTER_SEEN);
	}

	/**
	 * Where the page saw the pointer arrive, or null when it saw no move at all. Read after the
	 * page's next two animation frames (a page gets its mouse moves at the start of a frame), until
	 * it is at `target` or has shown the same other place three reads running: a busy machine may
	 * hold the moves back a while, which is no miss.
	 */
	private async pointerSeen(target: Point): Promise<Point | null> {
		const deadline = Date.now() + 3_000;
		let last: Point | null = null;
		let unchanged = 0;
		for (;;) {
			const at = await this.page.evaluate(
				(key: string) =>
					new Promise<Point | null>((resolve) => {
						const read = () => {
							const seen = (window as unknown as Record<string, { x: number | null; y: number | null } | undefined>)[key];
							resolve(seen && seen.x !== null && seen.y !== null ? { x: seen.x, y: seen.y } : null);
						};
						requestAnimationFrame(() => requestAnimationFrame(read));
						// A page that paints no frame now is still answered.
						setTimeout(read, 500);
					}),
				POINTER_SEEN,
			);
			if (at && Math.abs(at.x - target.x) <= LANDING_SLACK && Math.abs(at.y - target.y) <= LANDING_SLACK) return at;
			unchanged = at && last && at.x === last.x && at.y === last.y ? unchanged + 1 : 0;
			if (unchanged >= 2 || Date.now() >= deadline) return at;
			last = at;
			await sleep(50);
		}
	}

	private xdotoolRun(args: string[]): Promise<string> {
		return new Promise((resolve, reject) => {
			execFile(this.xdotool, args, { env: { ...process.env, ...this.display.env }, timeout: 15_000 }, (err, stdout, stderr) => {
				if (err) reject(new Error(`xdotool ${args[0]} failed: ${stderr.trim() || err.message}`));
				else resolve(stdout);
			});
		});
	}
}

/** DevTools events: what bots get where xdotool is missing (and what they all got before). */
class DevToolsInput implements PageInput {
	readonly kind = "devtools";
	private readonly page: Page;

	constructor(page: Page) {
		this.page = page;
	}

	click(element: ElementHandle<Element>): Promise<void> {
		return element.click();
	}

	type(text: string): Promise<void> {
		return this.page.keyboard.type(text);
	}

	async press(key: InputKey): Promise<void> {
		if (key !== "SelectAll") return this.page.keyboard.press(key);
		await this.page.keyboard.down("Control");
		await this.page.keyboard.press("KeyA");
		await this.page.keyboard.up("Control");
	}
}

async function boxOf(
	element: ElementHandle<Element>,
): Promise<{ left: number; top: number; width: number; height: number; inMainFrame: boolean; window: WindowGeometry }> {
	return element.evaluate((e) => {
		const r = e.getBoundingClientRect();
		const { screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight, devicePixelRatio } = window;
		return {
			left: r.left,
			top: r.top,
			width: r.width,
			height: r.height,
			inMainFrame: window === window.top,
			window: { screenX, screenY, outerWidth, outerHeight, innerWidth, innerHeight, devicePixelRatio },
		};
	});
}

/** xdotool's name for the key of one character: its keysym (x11-keymap.ts bound it), or a control key's name. */
function keyName(char: string): string {
	if (char === "\n") return "Return";
	if (char === "\t") return "Tab";
	return `0x${keysymOf(char.codePointAt(0) ?? 0).toString(16)}`;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);
