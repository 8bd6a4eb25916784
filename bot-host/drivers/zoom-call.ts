/**
 * The Zoom web client once the bot is in: Speaker View (so captions get a speaker), captions with
 * the modals that follow them, the panels the reader needs, chat, and leaving. Menus are clicked
 * through the page, as Attendee and Vexa do: overlays and auto-hiding bars take pointer clicks.
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { allTexts, type UiTexts } from "../../src/platforms/page-facts.ts";
import { ZOOM_PAGE } from "../../src/platforms/zoom/page.ts";
import { clickIfVisible, findByText, findVisible, waitVisible } from "./page-controls.ts";

const ZOOM = ZOOM_PAGE;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Pages whose host turned captions off: the bot stops asking for them (A: "unable to transcribe via closed-captions"). */
const captionsOff = new WeakSet<Page>();

/** Older V revealZoomControls: the pointer over the page, the top-right View widget and the footer wakes the hidden bars. */
export async function revealControls(page: Page): Promise<void> {
	const { width, height } = page.viewport() ?? { width: 1280, height: 720 };
	await page.mouse.move(Math.round(width / 2), Math.round(height / 2));
	await page.mouse.move(width - 8, 8);
	await page.mouse.move(Math.round(width / 2), height - 4);
}

/**
 * Clicks `button`; when something else is at its centre (V: `.preview-meeting-info` "intercepts
 * pointer events"), through the page instead. Returns what covered it, or null.
 */
export async function clickThrough(button: ElementHandle<Element>): Promise<string | null> {
	await button.scrollIntoView().catch(() => {});
	const cover = await button.evaluate((b) => {
		const box = b.getBoundingClientRect();
		const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
		if (!top || top === b || b.contains(top)) return null;
		const name = top.className && typeof top.className === "string" ? `.${top.className.trim().split(/\s+/).join(".")}` : "";
		return `${top.tagName.toLowerCase()}${name}`;
	});
	if (cover) await button.evaluate((b) => (b as HTMLElement).click());
	else await button.click();
	return cover;
}

/** "on", "off", or null: what a toggle's aria-label (else its text) says, by whole label. */
export async function controlState(button: ElementHandle<Element>, onLabels: UiTexts, offLabels: UiTexts): Promise<"on" | "off" | null> {
	return button.evaluate(
		(b, on: string[], off: string[]) => {
			const fold = (s: string) =>
				s
					.replace(/[\s\u00a0]+/g, " ")
					.trim()
					.toLowerCase();
			for (const label of [b.getAttribute("aria-label") ?? "", b.textContent ?? ""].map(fold)) {
				if (off.map(fold).includes(label)) return "off";
				if (on.map(fold).includes(label)) return "on";
			}
			return null;
		},
		allTexts(onLabels),
		allTexts(offLabels),
	);
}

/** Selectors for elements whose aria-label is one of `labels` (localized controls found by label). */
const byAriaLabel = (tags: string, labels: UiTexts) =>
	allTexts(labels).flatMap((label) => tags.split(",").map((tag) => `${tag.trim()}[aria-label="${label.replace(/"/g, '\\"')}" i]`));

async function domClick(handle: ElementHandle<Element>): Promise<void> {
	await handle.evaluate((e) => (e as HTMLElement).click());
	await handle.dispose();
}

/** Once admitted: Speaker View, captions, the participants and chat panels. False: try again. */
export async function prepareZoomCall(page: Page, step: (words: string) => void, language: string | null): Promise<boolean> {
	const captions = await ensureCaptions(page, step, language);
	const speakerView = await ensureSpeakerView(page, step);
	if (!(await findVisible(page, ZOOM.participantsPane))) await clickIfVisible(page, ZOOM.participantsButton);
	if (!(await findVisible(page, ZOOM.chatInput))) await clickIfVisible(page, ZOOM.chatButton);
	const panels = await Promise.all([ZOOM.participantsPane, ZOOM.chatInput].map((s) => findVisible(page, s)));
	return speakerView && captions && panels.every((handle) => handle !== null);
}

/** Older V switchToZoomSpeakerView: View → the option with `svg.SvgSpeakerView`, else its text inside the View menu. */
async function ensureSpeakerView(page: Page, step: (words: string) => void): Promise<boolean> {
	if (await findVisible(page, ZOOM.speakerViewShown)) return true;
	await revealControls(page);
	const view = await findVisible(page, [...ZOOM.viewButton, ...byAriaLabel("button", ZOOM.viewLabels)]);
	if (!view) return false;
	await domClick(view);
	await sleep(350);
	const clicked = await page.evaluate(
		(icon: string, menu: string, labels: string[]) => {
			const fold = (s: string) =>
				s
					.replace(/[\s\u00a0]+/g, " ")
					.trim()
					.toLowerCase();
			const svg = document.querySelector(icon);
			const byIcon = svg?.closest('[role="menuitemradio"],[role="menuitem"],li,button,[class*="menu-item"]') ?? svg?.parentElement;
			const byText = [...document.querySelectorAll(menu)]
				.flatMap((scope) => [...scope.querySelectorAll("*")])
				.find((e) => labels.map(fold).includes(fold(e.textContent ?? "")));
			const target = (byIcon ?? byText) as HTMLElement | null | undefined;
			target?.click();
			return target != null;
		},
		ZOOM.speakerViewIcon,
		ZOOM.viewMenu,
		allTexts(ZOOM.speakerViewLabels),
	);
	if (!clicked) {
		await page.keyboard.press("Escape");
		return false;
	}
	step("switched to Speaker View");
	return (await waitVisible(page, ZOOM.speakerViewShown, 1_500)) !== null;
}

/**
 * A: More meeting control → Captions → Show Captions, then the caption-language modal's Save and
 * the transcription notice's OK. No Captions item: the host turned captions off; the menu is closed
 * again and the bot stops asking.
 */
async function ensureCaptions(page: Page, step: (words: string) => void, language: string | null): Promise<boolean> {
	if (captionsOff.has(page) || (await findVisible(page, ZOOM.subtitles))) return true;
	await revealControls(page);
	const more = await findVisible(page, [...ZOOM.moreControls, ...byAriaLabel("div,button", ZOOM.moreLabels)]);
	if (!more) return false;
	await more.evaluate((e) => (e as HTMLElement).click());
	const entry =
		(await waitVisible(page, [...ZOOM.captionsMenu, ...byAriaLabel("a,[role=menuitem]", ZOOM.captionsLabels)], 1_500)) ??
		(await findByText(page, "a, [role=menuitem]", allTexts(ZOOM.captionsLabels)));
	if (!entry) {
		await domClick(more);
		captionsOff.add(page);
		step("captions unavailable: Zoom shows no Captions item (the host turned captions off)");
		return true;
	}
	await more.dispose();
	await domClick(entry);
	const show =
		(await waitVisible(page, ZOOM.showCaptions, 1_000)) ??
		(await findByText(page, "a, [role=menuitem], [role=menuitemcheckbox]", allTexts(ZOOM.showCaptionsLabels), true));
	if (!show) return false;
	await domClick(show);
	// The modals may follow (A waits 2 s for each); captions already showing mean there were none.
	const labels = [...allTexts(ZOOM.captionSaveLabels), ...allTexts(ZOOM.captionOkLabels)];
	const deadline = Date.now() + 4_000;
	let languageSet = language === null;
	while (Date.now() < deadline) {
		if (!languageSet) languageSet = await setSpeakingLanguage(page, language ?? "", step);
		const button = await findByText(page, ZOOM.captionModalButtons, labels);
		if (button) {
			step(`clicked ${await button.evaluate((b) => b.textContent?.trim())} on a captions notice`);
			await domClick(button);
		} else if (await findVisible(page, ZOOM.subtitles)) {
			break;
		}
		await sleep(150);
	}
	const on = (await findVisible(page, ZOOM.subtitles)) !== null;
	if (on) step("turned captions on");
	return on;
}

/**
 * The meeting's spoken language in the caption-language modal, as A does it: its name typed into
 * `input.transcription-language__input`, then Enter (Zoom lists languages by their English names).
 * True once set; false while the field is not shown (the modal can come a moment after Captions).
 */
async function setSpeakingLanguage(page: Page, code: string, step: (words: string) => void): Promise<boolean> {
	const field = await findVisible(page, ZOOM.captionLanguageInput);
	if (!field) return false;
	const name = languageName(code);
	await field.evaluate((e) => {
		(e as HTMLInputElement).select();
	});
	await field.type(name);
	await field.press("Enter");
	await field.dispose();
	step(`set the caption language to ${name}`);
	return true;
}

/** "de" → "German": the English name Zoom lists a language under. */
function languageName(code: string): string {
	try {
		return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
	} catch {
		return code;
	}
}

export async function sendZoomChat(page: Page, text: string): Promise<void> {
	let input = await findVisible(page, ZOOM.chatInput);
	if (!input) {
		await clickIfVisible(page, ZOOM.chatButton);
		input = await waitVisible(page, ZOOM.chatInput, 3_000);
	}
	if (!input) throw new Error("Zoom chat input not found");
	await input.click();
	await input.type(text);
	if (!(await clickIfVisible(page, ZOOM.chatSend))) await input.press("Enter");
}

/**
 * V leave.ts: Leave then "Leave Meeting", both through the page (the bar hides, Enter cancels the
 * confirmation); with no Leave to click, the page is closed down so the call really ends.
 */
export async function leaveZoom(page: Page): Promise<void> {
	await revealControls(page).catch(() => {});
	const leave = await findVisible(page, [...ZOOM.leave, ...byAriaLabel("button", ZOOM.leaveLabels)]);
	if (!leave) {
		if ((await page.$(ZOOM.leave.join(","))) === null) return;
		await page.goto("about:blank").catch(() => {});
		return;
	}
	const inWaitingRoom = await leave.evaluate((b) => b.matches("button.leave-btn"));
	await domClick(leave);
	if (inWaitingRoom) return;
	const confirm = await waitVisible(page, ZOOM.leaveConfirm, 4_000);
	if (confirm) await domClick(confirm);
	else await page.goto("about:blank").catch(() => {});
}
