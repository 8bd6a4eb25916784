/**
 * The Google Meet steps that need more than a click: devices turned off and confirmed, the join
 * button waited for until it is enabled, notices accepted only in their own dialogs, the caption
 * language set through Settings, and the pointer moved so the auto-hiding toolbar shows.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { MEET_PAGE as MEET } from "../../src/platforms/google-meet/page.ts";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { clickIfVisible, findVisible, pressUncovered, waitForText, waitVisible } from "./page-controls.ts";
import { LayoutChanged, type PageInput } from "./types.ts";

/**
 * Meet hides its in-call toolbar until the pointer moves (V `admission.ts`): move it before
 * looking for or clicking a toolbar button. Two points, so the page always sees a move.
 */
export async function wake(page: Page): Promise<void> {
	await page.mouse.move(120, 90);
	await page.mouse.move(180, 140);
}

/**
 * One device off, confirmed: click the toggle while it says the device is on, then wait for it to
 * say off; up to five tries (A `turn_off_media_inputs`: devices still starting ignore a click).
 * "absent" when the page shows no toggle for it at all.
 */
export async function turnOff(
	page: Page,
	on: readonly string[],
	off: readonly string[],
	again: boolean,
	input?: PageInput,
): Promise<"off" | "absent" | "stuck"> {
	for (let attempt = 0; attempt < 5; attempt++) {
		const toggle = await waitVisible(page, on, attempt === 0 && !again ? 3_000 : 300);
		if (!toggle) return (await findVisible(page, off)) ? "off" : "absent";
		await (input ? input.click(toggle) : toggle.click());
		await toggle.dispose();
		if (await waitVisible(page, off, 2_000)) return "off";
	}
	return "stuck";
}

/**
 * The join button by its label, once it is enabled: Meet mounts it and enables it a moment after
 * the rest of the form. Still disabled after the wait, it is a changed screen the bot retries.
 */
export async function joinButton(page: Page, again: boolean): Promise<{ button: ElementHandle<Element>; label: string }> {
	const texts = allTexts(MEET.joinTexts);
	const label = await waitForText(page, MEET.joinButtons, texts, again ? 500 : 5_000);
	if (!label) throw new LayoutChanged(`Google Meet join button not found (looked for ${texts.join(", ")})`);
	const button = (await label.evaluateHandle((e) => e.closest("button, [role=button]") ?? e)) as ElementHandle<Element>;
	const deadline = Date.now() + (again ? 1_000 : 8_000);
	for (;;) {
		const enabled = await button.evaluate((e) => !(e as HTMLButtonElement).disabled && e.getAttribute("aria-disabled") !== "true");
		if (enabled) break;
		if (Date.now() >= deadline) throw new LayoutChanged("Google Meet join button stayed disabled");
		await new Promise((r) => setTimeout(r, 150));
	}
	return { button, label: await label.evaluate((e) => e.textContent?.trim() ?? "") };
}

/**
 * A's notices (recording, transcription, "others may see your video differently", Gemini taking
 * notes) accepted only inside a modal dialog that says one of them; "Got it" anywhere else. Nothing
 * in a dialog that asks for consent (Gemini's "take notes for me") is ever pressed (V #429).
 */
export async function dismissNotices(page: Page): Promise<boolean> {
	const handle = await page.evaluateHandle(
		(dialogs: string, notices: string[], ok: string, gotIt: string[], consent: string[]) => {
			const fold = (s: string | null) =>
				(s ?? "")
					.replace(/[\u2018\u2019\u02bc]/g, "'")
					.replace(/[\s\u00a0]+/g, " ")
					.trim()
					.toLowerCase();
			const visible = (e: Element) => (e as HTMLElement).getClientRects().length > 0;
			const asksConsent = (e: Element | null) => e !== null && consent.some((c) => fold(e.textContent).includes(c));
			for (const dialog of document.querySelectorAll(dialogs)) {
				const text = fold(dialog.textContent);
				if (!visible(dialog) || asksConsent(dialog) || !notices.some((n) => text.includes(n))) continue;
				const button = dialog.querySelector(ok) ?? [...dialog.querySelectorAll("button")].find((b) => gotIt.includes(fold(b.textContent)));
				if (button && visible(button)) return button;
			}
			return (
				[...document.querySelectorAll("button, [role=button]")].find(
					(b) => visible(b) && gotIt.includes(fold(b.textContent)) && !asksConsent(b.closest('[role="dialog"], [role="alertdialog"]')),
				) ?? null
			);
		},
		MEET.notices.dialogs.join(","),
		allTexts(MEET.notices.texts).map((t) => t.toLowerCase()),
		MEET.notices.ok.join(","),
		allTexts(MEET.gotIt).map((t) => t.toLowerCase()),
		allTexts(MEET.consent).map((t) => t.toLowerCase()),
	);
	const button = handle.asElement() as ElementHandle<Element> | null;
	if (!button) {
		await handle.dispose();
		return false;
	}
	await pressUncovered(page, button);
	await button.dispose();
	return true;
}

/** Meet's caption language codes where the ISO code alone does not lead to them (A's enum: cmn-Hans-CN, iw-IL; a usual region first). */
const CAPTION_CODES: Record<string, string> = { en: "en-US", pt: "pt-BR", es: "es-ES", zh: "cmn-Hans-CN", he: "iw-IL" };

/** What setting the caption language came to on one page, so the Settings dialog is opened once, not on every try. */
const captionLanguage = new WeakMap<Page, { language: string; tries: number; done: boolean }>();

/**
 * The meeting's spoken language as Meet's caption language (A `select_language`): More options →
 * Settings → the option `li[data-value=<code>]`, clicked in the DOM (its list need not be open),
 * then the dialog closed. True when done or when there is nothing the bot can do (no such
 * language); false to be tried again (the menu was not there), at most three times.
 */
export async function setCaptionLanguage(page: Page, language: string): Promise<boolean> {
	const record = captionLanguage.get(page);
	const state = record?.language === language ? record : { language, tries: 0, done: false };
	captionLanguage.set(page, state);
	if (state.done) return true;
	if (++state.tries > 3) return true;
	await wake(page);
	if (!(await clickIfVisible(page, MEET.moreOptions))) return false;
	const settings = await waitForText(page, MEET.settingsItem.candidates, allTexts(MEET.settingsItem.texts), 3_000);
	if (!settings) {
		await page.keyboard.press("Escape");
		return false;
	}
	await settings.click();
	await settings.dispose();
	const deadline = Date.now() + 5_000;
	let chosen: string | null | undefined;
	while (chosen === undefined && Date.now() < deadline) {
		chosen = await page.evaluate(
			(options: string, wanted: string, preferred: string) => {
				const all = [...document.querySelectorAll(options)];
				if (all.length === 0) return undefined;
				const value = (e: Element) => (e.getAttribute("data-value") ?? "").toLowerCase();
				const pick =
					all.find((e) => value(e) === wanted) ??
					all.find((e) => value(e) === preferred) ??
					all.find((e) => value(e).startsWith(`${wanted}-`));
				if (!pick) return null;
				(pick as HTMLElement).click();
				return pick.getAttribute("data-value");
			},
			MEET.captionLanguages.join(","),
			language.toLowerCase(),
			(CAPTION_CODES[language.toLowerCase()] ?? "").toLowerCase(),
		);
		if (chosen === undefined) await new Promise((r) => setTimeout(r, 150));
	}
	if (!(await clickIfVisible(page, MEET.closeDialog))) await page.keyboard.press("Escape");
	// Chosen, or a language Meet does not offer: either way there is nothing more to do.
	if (chosen !== undefined) state.done = true;
	return state.done;
}
