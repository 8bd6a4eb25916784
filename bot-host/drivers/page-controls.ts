/**
 * What the drivers do to a page's controls: find one by selector or by its whole label, wait for
 * it, click it (through the display's real input where the platform watches how), type into it,
 * press it through whatever lies over it, and click pop-ups away. Reading the page is probe.ts.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { allTexts, type UiTexts } from "../../src/platforms/page-facts.ts";
import type { PageInput } from "./types.ts";

/** First visible element matching any selector, or null. */
export async function findVisible(page: Page, selectors: readonly string[]): Promise<ElementHandle<Element> | null> {
	for (const selector of selectors) {
		for (const handle of await page.$$(selector)) {
			if (await handle.isVisible()) return handle;
			await handle.dispose();
		}
	}
	return null;
}

/**
 * First visible element among `candidates` whose whole text is one of `texts` (case-insensitive,
 * curly apostrophes read as straight ones): a button's own label, never a container that holds it.
 * `byAriaLabel`: its aria-label counts as well as its text (a control whose label is not its text).
 */
export async function findByText(
	page: Page,
	candidates: string,
	texts: readonly string[],
	byAriaLabel = false,
): Promise<ElementHandle<Element> | null> {
	const handle = await page.evaluateHandle(
		(selector: string, wanted: readonly string[], aria: boolean) => {
			const fold = (s: string) =>
				s
					.replace(/[\u2018\u2019\u02bc]/g, "'")
					.replace(/[\s\u00a0]+/g, " ")
					.trim()
					.toLowerCase();
			const want = new Set(wanted.map(fold));
			const named = (e: Element) => want.has(fold(e.textContent ?? "")) || (aria && want.has(fold(e.getAttribute("aria-label") ?? "")));
			return [...document.querySelectorAll(selector)].find((e) => (e as HTMLElement).getClientRects().length > 0 && named(e)) ?? null;
		},
		candidates,
		texts,
		byAriaLabel,
	);
	const element = handle.asElement() as ElementHandle<Element> | null;
	if (!element) await handle.dispose();
	return element;
}

/** Looks every 100 ms until `find` finds something; null when the time is up. */
async function waitFor(find: () => Promise<ElementHandle<Element> | null>, timeoutMs: number): Promise<ElementHandle<Element> | null> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const found = await find();
		if (found || Date.now() >= deadline) return found;
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** Wait for the first of several selectors to be visible; null when the time is up. */
export function waitVisible(page: Page, selectors: readonly string[], timeoutMs: number): Promise<ElementHandle<Element> | null> {
	return waitFor(() => findVisible(page, selectors), timeoutMs);
}

/** Pop-ups a driver clicks away: by selector, by a button's whole text anywhere, or only inside given elements. */
export interface Popups {
	selectors: readonly string[];
	texts: UiTexts;
	/** Texts that dismiss only inside some notices ("OK" is also an end screen's button elsewhere). */
	scoped?: readonly { candidates: string; texts: UiTexts }[];
}

/** Dismiss the first visible pop-up found, by selector or by its button's text. */
export async function dismissAny(page: Page, popups: Popups): Promise<boolean> {
	if (await clickIfVisible(page, popups.selectors)) return true;
	const lists = [{ candidates: "button, [role=button]", texts: popups.texts }, ...(popups.scoped ?? [])];
	for (const { candidates, texts } of lists) {
		const button = await findByText(page, candidates, allTexts(texts));
		if (!button) continue;
		await button.click();
		await button.dispose();
		return true;
	}
	return false;
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
export async function clickIfVisible(page: Page, selectors: readonly string[], input?: PageInput): Promise<boolean> {
	const handle = await findVisible(page, selectors);
	if (!handle) return false;
	await (input ? input.click(handle) : handle.click());
	await handle.dispose();
	return true;
}

/** Wait for a control whose whole label is one of `texts` (as `findByText`); null when the time is up. */
export function waitForText(
	page: Page,
	candidates: string,
	texts: readonly string[],
	timeoutMs: number,
): Promise<ElementHandle<Element> | null> {
	return waitFor(() => findByText(page, candidates, texts), timeoutMs);
}

/**
 * Presses a button where a person would click it; when something lies over it (an overlay, a
 * pop-up) `clearWay` gets a chance to remove it, and if it is still covered the button is
 * focused and pressed with Enter, a real key press that reaches it through whatever is on top.
 */
export async function pressUncovered(
	page: Page,
	button: ElementHandle<Element>,
	clearWay: () => Promise<unknown> = async () => {},
	input?: PageInput,
): Promise<"clicked" | "pressed"> {
	const covered = () =>
		button.evaluate((e) => {
			e.scrollIntoView({ block: "center", inline: "center" });
			const box = e.getBoundingClientRect();
			const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
			return !(top && (top === e || e.contains(top)));
		});
	if (await covered()) {
		await clearWay();
		if (await covered()) {
			await button.focus();
			await (input ? input.press("Enter") : page.keyboard.press("Enter"));
			return "pressed";
		}
	}
	await (input ? input.click(button) : button.click());
	return "clicked";
}
