/**
 * Presenting content as the platform's own screen share, the same way on every platform: the
 * content is already on the page's virtual screen (page-media.js), the bot presses the share
 * control, and the platform's getDisplayMedia call is answered with that screen, so no browser
 * picker shows. Whether the platform took it is read from the page (a live shared track), not
 * guessed from the UI; no control, a disabled one or the host's refusal notice means no share.
 */
import type { Page } from "puppeteer-core";
import { allTexts } from "../../src/platforms/page-facts.ts";
import type { ShareFacts } from "../../src/platforms/share-facts.ts";
import { clickIfVisible, findByText, findVisible } from "./page-controls.ts";

/** How long the platform has to ask for the screen after the share control was pressed. */
const SHARE_ANSWER_MS = 6_000;
/** A press that led to nothing (no request for the screen, no menu) this long after is made again, up to MAX_PRESSES in all. */
const REPRESS_AFTER_MS = 1_500;
const MAX_PRESSES = 3;
const MENU_ITEMS = 'button, [role="button"], [role="menuitem"], [role="menuitemradio"], li';

/*
 * What the in-page functions below touch, typed here: this file is also compiled where the DOM's
 * types are not loaded (the Worker's project reads the drivers' registry).
 */
interface ScreenPage {
	__bot: { screenShare(): { requests: number; live: number }; endScreenShare(): number };
	document: { querySelectorAll(selectors: string): Iterable<PageElement> };
}
interface PageElement {
	disabled?: boolean;
	innerText?: string;
	getAttribute(name: string): string | null;
	getClientRects(): { length: number };
}

const shareState = (page: Page) => page.evaluate(() => (globalThis as unknown as ScreenPage).__bot.screenShare());

/**
 * Presses the share control and waits for the platform to present the virtual screen:
 * `screen_share` when it did, null when the guest has no share control, the control is disabled,
 * the host's refusal shows, or the platform never asked for the screen.
 */
export async function startPresenting(
	page: Page,
	share: ShareFacts,
	log: (line: string) => void = () => {},
): Promise<"screen_share" | null> {
	const { requests: before } = await shareState(page);
	const pressed = await pressShareControl(page, share);
	if (pressed !== "pressed") {
		log(`presenting: ${pressed}`);
		return null;
	}
	let presses = 1;
	let pressedAt = Date.now();
	const choices = allTexts(share.choices);
	const deadline = Date.now() + SHARE_ANSWER_MS;
	while (Date.now() < deadline) {
		const { requests, live } = await shareState(page);
		if (live > 0) return "screen_share";
		if (await refused(page, share)) {
			log("presenting: the platform refused the share (host setting)");
			return null;
		}
		// A menu of what to present first (older Meet): the whole screen, else a tab.
		const choice = choices.length > 0 ? await findByText(page, MENU_ITEMS, choices) : null;
		if (choice) {
			await choice.click();
			await choice.dispose();
		} else if (requests === before && presses < MAX_PRESSES && Date.now() - pressedAt > REPRESS_AFTER_MS) {
			// Nothing came of the press: the page moved under the pointer (a panel opening), so press again.
			if ((await pressShareControl(page, share)) !== "pressed") break;
			presses++;
			pressedAt = Date.now();
		}
		await new Promise((r) => setTimeout(r, 150));
	}
	const { requests } = await shareState(page);
	log(`presenting: the platform did not present the screen (${requests - before} request(s) for it after ${presses} press(es))`);
	// A menu or half-open share flow left behind would cover the call.
	await page.keyboard.press("Escape").catch(() => {});
	return null;
}

/** Clicks the share control if the page offers it enabled; otherwise says why not. */
async function pressShareControl(
	page: Page,
	share: ShareFacts,
): Promise<"pressed" | "no share control on the page" | "the share control is disabled"> {
	const control = await findVisible(page, share.start);
	if (!control) return "no share control on the page";
	try {
		const disabled = await control.evaluate((e) => {
			const button = e as unknown as PageElement;
			return button.disabled === true || button.getAttribute("aria-disabled") === "true";
		});
		if (disabled) return "the share control is disabled";
		await control.click();
		return "pressed";
	} finally {
		await control.dispose();
	}
}

/**
 * Ends the share: the shared tracks end as with the browser's own "Stop sharing", so the
 * platform stops presenting by itself; its stop control is pressed too if it still shows.
 */
export async function stopPresenting(page: Page, share: ShareFacts): Promise<void> {
	await page.evaluate(() => (globalThis as unknown as ScreenPage).__bot.endScreenShare());
	if (await clickIfVisible(page, share.stop)) return;
	const stopTexts = allTexts(share.stopTexts);
	const stop = stopTexts.length > 0 ? await findByText(page, 'button, [role="button"]', stopTexts) : null;
	await stop?.click();
	await stop?.dispose();
}

/** The host's refusal notice, read only inside the elements the platform shows notices in. */
async function refused(page: Page, share: ShareFacts): Promise<boolean> {
	const texts = allTexts(share.refusal);
	if (texts.length === 0 || share.refusalWithin.length === 0) return false;
	return page.evaluate(
		(within: readonly string[], wanted: readonly string[]) => {
			const fold = (s: string) =>
				s
					.replace(/[\s\u00a0]+/g, " ")
					.trim()
					.toLowerCase();
			const want = wanted.map(fold);
			const page = globalThis as unknown as ScreenPage;
			return [...page.document.querySelectorAll(within.join(","))].some((e) => {
				if (e.getClientRects().length === 0) return false;
				// biome-ignore lint/performance/useDomNodeTextContent: visible text only; a hidden notice refuses nothing.
				const text = fold(e.innerText ?? "");
				return want.some((t) => text.includes(t));
			});
		},
		share.refusalWithin,
		texts,
	);
}
