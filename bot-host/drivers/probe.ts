/**
 * The in-page reader shared by all drivers: each platform describes its DOM in one table
 * (selectors and texts) and this reads a full snapshot in a single evaluate per tick.
 * Only visible elements and visible text count, because every platform keeps hidden
 * in-call controls and stale screens in the DOM.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import type { MeetingSnapshot, PageInput, PageState } from "./types.ts";

export interface StateRule {
	state: PageState;
	/** Visible text anywhere on the page (curly quotes normalised). */
	texts?: string[];
	/** Any visible element matching. */
	selectors?: string[];
	/** The page's address contains one of these (a redirect to a sign-in host). */
	urls?: string[];
}

export interface NameSource {
	/** Selector inside the element; absent means the element itself. */
	selector?: string;
	/** Read this attribute instead of the text. */
	attribute?: string;
}

export interface ProbeTable {
	/** First rule that matches wins: put outcomes first, then the lobby, then in-call evidence. */
	states: StateRule[];
	captions: { entry: string; speaker: NameSource | null; text: string };
	/** A tile is speaking if it (or something inside it) matches `speaking`. */
	speakers: { tile: string; speaking: string[]; name: NameSource };
	participants: { item: string; name: NameSource; self: string[]; visibleOnly: boolean };
	/**
	 * `sender.closest`: the element around the message that holds the sender (a group header);
	 * `inheritSender`: a message without a sender of its own is the previous sender's.
	 */
	chat: { message: string; text: string; sender: NameSource & { closest?: string }; inheritSender: boolean };
}

interface ProbeWindow {
	__botCaptionKeys?: WeakMap<Element, string>;
	__botCaptionSeq?: number;
}

/** Runs in the page. Self-contained: no closures over module scope. */
function probePage(table: ProbeTable, botName: string): MeetingSnapshot {
	const norm = (s: string) =>
		s
			.replace(/[\u2018\u2019]/g, "'")
			.replace(/\s+/g, " ")
			.trim();
	const visible = (e: Element) => (e as HTMLElement).getClientRects().length > 0;
	const readName = (e: Element, source: NameSource) => {
		const target = source.selector ? e.querySelector(source.selector) : e;
		if (!target) return "";
		return norm(source.attribute ? (target.getAttribute(source.attribute) ?? "") : (target.textContent ?? ""));
	};
	// biome-ignore lint/performance/useDomNodeTextContent: innerText leaves out hidden screens, which is the point.
	const pageText = norm(document.body?.innerText ?? "");
	let state: PageState = "unknown";
	for (const rule of table.states) {
		const byText = (rule.texts ?? []).some((t) => pageText.includes(norm(t)));
		const bySelector = (rule.selectors ?? []).some((s) => [...document.querySelectorAll(s)].some(visible));
		const byUrl = (rule.urls ?? []).some((u) => location.href.includes(u));
		if (byText || bySelector || byUrl) {
			state = rule.state;
			break;
		}
	}
	const w = window as unknown as ProbeWindow;
	w.__botCaptionKeys ??= new WeakMap();
	const keys = w.__botCaptionKeys;
	const captions = [...document.querySelectorAll(table.captions.entry)].map((entry) => {
		let key = keys.get(entry);
		if (!key) {
			w.__botCaptionSeq = (w.__botCaptionSeq ?? 0) + 1;
			key = `c${w.__botCaptionSeq}`;
			keys.set(entry, key);
		}
		const textEl = entry.querySelector(table.captions.text) ?? (entry.matches(table.captions.text) ? entry : null);
		return {
			key,
			speaker: table.captions.speaker ? readName(entry, table.captions.speaker) || null : null,
			text: norm(textEl?.textContent ?? ""),
		};
	});
	const activeSpeakers = [...document.querySelectorAll(table.speakers.tile)]
		.filter((tile) => table.speakers.speaking.some((s) => tile.matches(s) || tile.querySelector(s) !== null))
		.map((tile) => readName(tile, table.speakers.name))
		.filter((name) => name !== "");
	const participants = [...document.querySelectorAll(table.participants.item)]
		.filter((item) => !table.participants.visibleOnly || visible(item))
		.filter((item) => !table.participants.self.some((s) => item.matches(s) || item.querySelector(s) !== null))
		.map((item) => readName(item, table.participants.name))
		.filter((name) => name !== "" && name !== norm(botName));
	let lastSender = "";
	const chat = [...document.querySelectorAll(table.chat.message)].map((message) => {
		const source = table.chat.sender;
		const holder = source.closest ? message.closest(source.closest) : message;
		let sender = holder ? readName(holder, source) : "";
		if (!sender && table.chat.inheritSender) sender = lastSender;
		lastSender = sender;
		const textEl = message.querySelector(table.chat.text);
		return { sender, text: norm(textEl?.textContent ?? "") };
	});
	return { state, captions, activeSpeakers: [...new Set(activeSpeakers)], participants: [...new Set(participants)], chat };
}

export function readSnapshot(page: Page, table: ProbeTable, botName: string): Promise<MeetingSnapshot> {
	return page.evaluate(probePage, table, botName);
}

/** First visible element matching any selector, or null. */
export async function findVisible(page: Page, selectors: string[]): Promise<ElementHandle<Element> | null> {
	for (const selector of selectors) {
		for (const handle of await page.$$(selector)) {
			if (await handle.isVisible()) return handle;
			await handle.dispose();
		}
	}
	return null;
}

/** First visible element among `candidates` whose own text is exactly one of `texts`. */
export async function findByText(page: Page, candidates: string, texts: string[]): Promise<ElementHandle<Element> | null> {
	const handle = await page.evaluateHandle(
		(selector: string, wanted: string[]) => {
			const norm = (s: string) =>
				s
					.replace(/[\u2018\u2019]/g, "'")
					.replace(/\s+/g, " ")
					.trim();
			const want = wanted.map(norm);
			return (
				[...document.querySelectorAll(selector)].find(
					(e) => (e as HTMLElement).getClientRects().length > 0 && want.includes(norm(e.textContent ?? "")),
				) ?? null
			);
		},
		candidates,
		texts,
	);
	const element = handle.asElement() as ElementHandle<Element> | null;
	if (!element) await handle.dispose();
	return element;
}

/** Wait for the first of several selectors to be visible; null when the time is up. */
export async function waitVisible(page: Page, selectors: string[], timeoutMs: number): Promise<ElementHandle<Element> | null> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = await findVisible(page, selectors);
		if (found || Date.now() >= deadline) return found;
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** Dismiss the first visible pop-up found, by selector or by its button's text. */
export async function dismissAny(page: Page, popups: { selectors: string[]; texts: string[] }): Promise<boolean> {
	if (await clickIfVisible(page, popups.selectors)) return true;
	const button = await findByText(page, "button, [role=button]", popups.texts);
	if (!button) return false;
	await button.click();
	await button.dispose();
	return true;
}

/**
 * Types into a field with real key presses (some platforms ignore a value set by script),
 * replacing what a previous attempt left there; through `input` where the platform watches how.
 */
export async function typeInto(field: ElementHandle<Element>, text: string, input?: PageInput): Promise<void> {
	const filled = () => field.evaluate((e) => e instanceof HTMLInputElement && e.value !== "");
	if (input) {
		await input.click(field);
		if (await filled()) await input.press("SelectAll");
		return input.type(text);
	}
	await field.click();
	await field.evaluate((e) => {
		if (e instanceof HTMLInputElement && e.value !== "") e.select();
	});
	await field.type(text);
}

/** Clicks the first visible match, through `input` where the platform watches how (else a DevTools click). */
export async function clickIfVisible(page: Page, selectors: string[], input?: PageInput): Promise<boolean> {
	const handle = await findVisible(page, selectors);
	if (!handle) return false;
	await (input ? input.click(handle) : handle.click());
	await handle.dispose();
	return true;
}
