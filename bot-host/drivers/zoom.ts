/**
 * Zoom web client driver: the join link rewritten to app.zoom.us, the pre-join screen as Vexa
 * and Attendee get past it (src/platforms/zoom/page.ts), and the call (zoom-call.ts).
 */
import type { ElementHandle, Page } from "puppeteer-core";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { ZOOM_PAGE } from "../../src/platforms/zoom/page.ts";
import { clickIfVisible, dismissAny, findByText, findVisible, type Popups, typeInto, waitVisible } from "./page-controls.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { readSnapshot } from "./probe.ts";
import { JoinNotReady, type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";
import { clickThrough, controlState, leaveZoom, prepareZoomCall, revealControls, sendZoomChat } from "./zoom-call.ts";

const ZOOM = ZOOM_PAGE;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The permission prompt's "Allow" is also a pop-up the bot clears whenever it shows. */
const POPUPS: Popups = {
	...ZOOM.popups,
	texts: Object.fromEntries(
		Object.entries(ZOOM.popups.texts).map(([language, texts]) => [
			language,
			[...texts, ...(ZOOM.permissionAllow[language as keyof typeof ZOOM.permissionAllow] ?? [])],
		]),
	),
};

export const zoom: MeetingDriver = {
	platform: "zoom",
	hostRecheckMs: ZOOM.hostRecheckMs,

	joinUrl(meetingUrl, passcode) {
		const url = new URL(meetingUrl);
		// A: a zoom.com link is the same meeting on zoom.us.
		url.hostname = url.hostname.replace(/(^|\.)zoom\.com$/, "$1zoom.us");
		const host = url.hostname;
		// events.zoom.us and white-label portals are opened as given (V): a person may have to get past them.
		if (!(host === "zoom.us" || host.endsWith(".zoom.us")) || host === "events.zoom.us") return meetingUrl;
		const parts = url.pathname.split("/").filter(Boolean);
		const id =
			parts[0] === "wc" ? (parts[1] === "join" ? parts[2] : parts[1]) : ["j", "s", "w"].includes(parts[0] ?? "") ? parts[1] : undefined;
		if (!id || !/^\d+$/.test(id)) return url.toString();
		const target = new URL(`https://app.zoom.us/wc/${id}/join`);
		const pwd = url.searchParams.get("pwd") ?? passcode;
		if (pwd) target.searchParams.set("pwd", pwd);
		// A: the registrant token of a meeting or webinar that needs registration.
		const tk = url.searchParams.get("tk");
		if (tk) target.searchParams.set("tk", tk);
		return target.toString();
	},

	async join(page: Page, { botName, passcode, step = () => {}, again = false }: JoinOptions) {
		if (await clickIfVisible(page, ZOOM.cookieAccept)) step("accepted the cookie banner");
		// V: the permission prompt comes before the name field and covers it; typed keys would go nowhere.
		await clearPermissionPrompts(page, step);
		const name = await waitVisible(page, ZOOM.nameInput, again ? 2_000 : 20_000);
		if (!name) throw new LayoutChanged("Zoom pre-join screen did not show a name field");
		if (await clickIfVisible(page, ZOOM.cookieAccept)) step("accepted the cookie banner");
		await clearPermissionPrompts(page, step);
		await typeName(name, botName);
		step("typed the bot's name");
		const pass = await findVisible(page, ZOOM.passcodeInput);
		if (pass) {
			if (!passcode) throw new Error("Zoom asks for a passcode and none was given");
			await typeName(pass, passcode);
			step("typed the passcode");
		}
		if (await switchOff(page, ZOOM.previewAudio, ZOOM.micOnLabels)) step("turned the microphone off");
		if (await switchOff(page, ZOOM.previewVideo, ZOOM.cameraOnLabels)) step("turned the camera off");
		const join = await waitVisible(page, ZOOM.joinButton, again ? 500 : 5_000);
		if (!join) throw new LayoutChanged("Zoom join button not found (preview-join-button, #joinBtn)");
		// V: Join enables a second or two after real keys are typed; still disabled is a try again, not an end.
		if (!(await enabledWithin(join, ZOOM.joinEnableMs)))
			throw new JoinNotReady(`Zoom's Join stayed disabled for ${ZOOM.joinEnableMs / 1000} s`);
		const cover = await clickThrough(join);
		step(cover ? `clicked Join through the page (${cover} covers it)` : "clicked Join");
	},

	snapshot: (page, context) => readSnapshot(page, ZOOM.probe, context),

	dismissInterruptions: (page) => dismissAny(page, POPUPS),

	async prepareCall(page, options = {}) {
		while (await dismissAny(page, POPUPS)) await sleep(400);
		return prepareZoomCall(page, options.step ?? (() => {}), options.language ?? null);
	},

	sendChat: sendZoomChat,

	setMicrophone: (page, on) => setSwitch(page, ZOOM.footerAudio, on, ZOOM.micOnLabels, ZOOM.micOffLabels),

	setCamera: (page, on) => setSwitch(page, ZOOM.footerVideo, on, ZOOM.cameraOnLabels, ZOOM.cameraOffLabels),

	leave: leaveZoom,

	startPresenting: (page, log) => startPresenting(page, ZOOM.share, log),
	stopPresenting: (page) => stopPresenting(page, ZOOM.share),
};

/** V: "Allow" up to three times (the prompt comes twice), else "Continue without microphone and camera". */
async function clearPermissionPrompts(page: Page, step: (words: string) => void): Promise<void> {
	for (let pass = 0; pass < 3; pass++) {
		const allow = await findByText(page, "button", allTexts(ZOOM.permissionAllow));
		const button = allow ?? (await findByText(page, "button", allTexts(ZOOM.permissionSkip)));
		if (!button) return;
		await button.click();
		await button.dispose();
		step(allow ? "allowed the microphone and camera" : "continued without microphone and camera");
		// The second prompt follows the first after a moment.
		await sleep(600);
	}
}

/**
 * Real key presses (a value set by script leaves Join disabled), checked: when something still
 * covered the field the keys went nowhere, so the field is focused through the page and typed again.
 */
async function typeName(field: ElementHandle<Element>, text: string): Promise<void> {
	await typeInto(field, text);
	if ((await field.evaluate((e) => (e as HTMLInputElement).value)) === text) return;
	await field.evaluate((e) => {
		const input = e as HTMLInputElement;
		input.focus();
		input.select();
	});
	await field.type(text);
}

/** Clicks a preview toggle whose label says it is on; true if it did. */
async function switchOff(page: Page, selectors: readonly string[], onLabels: Parameters<typeof controlState>[1]): Promise<boolean> {
	const button = await findVisible(page, selectors);
	if (!button || (await controlState(button, onLabels, {})) !== "on") return false;
	await button.click();
	return true;
}

async function enabledWithin(button: ElementHandle<Element>, ms: number): Promise<boolean> {
	const deadline = Date.now() + ms;
	for (;;) {
		const enabled = await button.evaluate((b) => !b.classList.contains("disabled") && !(b as HTMLButtonElement).disabled);
		if (enabled || Date.now() >= deadline) return enabled;
		await sleep(200);
	}
}

/** The footer's mic or camera button, by class, switched to `on` when its label (or text) says otherwise. */
async function setSwitch(
	page: Page,
	selectors: readonly string[],
	on: boolean,
	onLabels: Parameters<typeof controlState>[1],
	offLabels: Parameters<typeof controlState>[2],
): Promise<void> {
	// The footer hides itself until the pointer moves.
	if (!(await findVisible(page, selectors))) await revealControls(page);
	const button = await findVisible(page, selectors);
	if (!button) return;
	const state = await controlState(button, onLabels, offLabels);
	if (state !== null && state !== (on ? "on" : "off")) await button.click();
	await button.dispose();
}
