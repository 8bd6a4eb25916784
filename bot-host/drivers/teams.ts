/** Microsoft Teams web driver: the page as src/platforms/teams/page.ts describes it (docs/sandbox.md#teams-web). */
import type { ElementHandle, Page } from "puppeteer-core";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { TEAMS_PAGE } from "../../src/platforms/teams/page.ts";
import { clickIfVisible, dismissAny, findByText, findVisible, typeInto, waitVisible } from "./page-controls.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { readSnapshot } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const TEAMS = TEAMS_PAGE;
const T = TEAMS.texts;
/** How long Join now may stay disabled after the form is filled (V waits up to 8 s for a Join to enable). */
const JOIN_ENABLED_WAIT_MS = 8_000;
/** How long after the click the light flow's audio/video prompt is looked for (V polls after Join now). */
const PROMPT_WATCH_MS = 1_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A pointer click, or a click through the DOM when something covers the element's centre (an
 * overlay over Join): A's `click_element_forcefully`, B's DOM clicks.
 */
async function press(handle: ElementHandle<Element>): Promise<void> {
	const covered = await handle.evaluate((e) => {
		const box = e.getBoundingClientRect();
		const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
		return top !== null && top !== e && !e.contains(top);
	});
	if (covered) await handle.evaluate((e) => (e as HTMLElement).click());
	else await handle.click();
}

async function pressFirst(page: Page, selectors: readonly string[], texts: readonly string[], candidates: string): Promise<boolean> {
	const handle = (await findVisible(page, selectors)) ?? (await findByText(page, candidates, texts));
	if (!handle) return false;
	await press(handle);
	await handle.dispose();
	return true;
}

/** Join now, by its data-tid (A) or its label (V, S, B). */
async function joinButton(page: Page): Promise<ElementHandle<Element> | null> {
	return (await findVisible(page, TEAMS.joinButton)) ?? findByText(page, "button", allTexts(T.joinNow));
}

const isEnabled = (handle: ElementHandle<Element>) =>
	handle.evaluate((e) => !(e as HTMLButtonElement).disabled && e.getAttribute("aria-disabled") !== "true");

/** Join now once it is enabled; null when it is not there; LayoutChanged when it stays disabled. */
async function enabledJoin(page: Page, waitMs: number): Promise<ElementHandle<Element> | null> {
	const deadline = Date.now() + waitMs;
	for (;;) {
		const join = await joinButton(page);
		if (join && (await isEnabled(join))) return join;
		await join?.dispose();
		if (Date.now() >= deadline) {
			if (join) throw new LayoutChanged("Teams' Join now stayed disabled");
			return null;
		}
		await sleep(200);
	}
}

/**
 * The pre-join form is offered again: Join now enabled (the request was not sent, or was dropped),
 * or a fresh form with the name field empty (back from "we couldn't connect you").
 */
async function joinOffered(page: Page): Promise<boolean> {
	const join = await joinButton(page);
	if (!join) return false;
	const enabled = await isEnabled(join);
	await join.dispose();
	if (enabled) return true;
	const name = await findVisible(page, TEAMS.nameInput);
	const fresh = name !== null && (await name.evaluate((e) => (e as HTMLInputElement).value.trim() === ""));
	await name?.dispose();
	return fresh;
}

/** A switch is on when `aria-checked` or `checked` says so (A; S's switches are native inputs). Verified, up to 3 clicks. */
async function switchOff(page: Page, selectors: readonly string[]): Promise<boolean> {
	let clicked = false;
	for (let attempt = 0; attempt < 3; attempt++) {
		const handle = await findVisible(page, selectors);
		if (!handle) return clicked;
		const on = await handle.evaluate((e) => e.getAttribute("aria-checked") === "true" || (e instanceof HTMLInputElement && e.checked));
		if (on) await press(handle);
		await handle.dispose();
		if (!on) return clicked;
		clicked = true;
	}
	return clicked;
}

/** Captions were turned on in this page already (the caption list mounts only after speech, so the bot remembers its click). */
function captionsOn(page: Page): Promise<boolean> {
	return page.evaluate(
		(regions: readonly string[]) =>
			(window as { __botTeamsCaptions?: boolean }).__botTeamsCaptions === true || document.querySelector(regions.join(",")) !== null,
		TEAMS.captionRegions,
	);
}

/**
 * One try at captions (the session tries again): More → "Captions" for a guest, or More →
 * "Language and speech" → live captions for an organiser (V enableTeamsLiveCaptions, A by id);
 * Escape when neither is there, so the menu does not stay open over the call.
 */
async function turnOnCaptions(page: Page): Promise<boolean> {
	if (!(await clickIfVisible(page, TEAMS.moreButton))) return false;
	await waitVisible(page, [TEAMS.menuItems], 1_000);
	let turnedOn = await pressFirst(page, [], allTexts(T.captionsItem), TEAMS.menuItems);
	if (!turnedOn && (await pressFirst(page, TEAMS.languageAndSpeechItem, allTexts(T.languageAndSpeech), TEAMS.menuItems))) {
		await waitVisible(page, [...TEAMS.closedCaptionsItem, TEAMS.menuItems], 1_000);
		turnedOn = await pressFirst(page, TEAMS.closedCaptionsItem, allTexts(T.captionsItem), TEAMS.menuItems);
	}
	if (!turnedOn) {
		await page.keyboard.press("Escape");
		return false;
	}
	await page.evaluate(() => {
		(window as { __botTeamsCaptions?: boolean }).__botTeamsCaptions = true;
	});
	return true;
}

/** A's fakeUserActivity: a mousemove now and then, because an idle Teams page stops receiving chat. */
function keepAlive(page: Page): Promise<void> {
	return page.evaluate((everyMs: number) => {
		const w = window as { __botKeepAlive?: number };
		w.__botKeepAlive ??= window.setInterval(() => {
			const at = { bubbles: true, clientX: Math.random() * 500, clientY: Math.random() * 500 };
			document.body.dispatchEvent(new MouseEvent("mousemove", at));
		}, everyMs);
	}, TEAMS.keepAliveMs);
}

/** "We couldn't connect you" (A: Teams blocking the bot for now, retried): Rejoin, back to the pre-join screen. */
async function rejoinAfterConnectionFailure(page: Page): Promise<boolean> {
	const titles = await page.$$eval(TEAMS.retryScreenTitle.join(","), (elements) => elements.map((e) => e.textContent ?? ""));
	const said = titles
		.join(" ")
		.replace(/[\u2018\u2019]/g, "'")
		.toLowerCase();
	if (!allTexts(T.couldNotConnect).some((text) => said.includes(text.toLowerCase()))) return false;
	return clickIfVisible(page, TEAMS.rejoinButton);
}

export const teams: MeetingDriver = {
	platform: "teams",
	audioCapture: TEAMS.audioCapture,

	joinUrl(meetingUrl, passcode) {
		const url = new URL(meetingUrl);
		if (passcode && url.pathname.startsWith("/meet/") && !url.searchParams.has("p")) url.searchParams.set("p", passcode);
		return url.toString();
	},

	async join(page: Page, { botName, passcode, step = () => {}, again = false }: JoinOptions) {
		const deadline = Date.now() + (again ? 2_000 : 20_000);
		let name = await findVisible(page, TEAMS.nameInput);
		while (!name && Date.now() < deadline) {
			// V: the audio/video prompt can come before the form, and blocks it.
			await dismissAny(page, TEAMS.popups);
			if (await pressFirst(page, TEAMS.launcher, allTexts(T.continueInBrowser), "button, a, [role=button]"))
				step("clicked Continue on this browser");
			name = await waitVisible(page, TEAMS.nameInput, 500);
		}
		if (!name) throw new LayoutChanged("Teams pre-join screen did not show a name field");
		if ((await name.evaluate((e) => (e as HTMLInputElement).value)) !== botName) {
			await typeInto(name, botName);
			step("typed the bot's name");
		}
		const pass = await findVisible(page, TEAMS.passcodeInput);
		if (pass) {
			if (!passcode) throw new Error("Teams asks for a passcode and none was given");
			await typeInto(pass, passcode);
			step("typed the passcode");
		}
		if (await switchOff(page, TEAMS.micSwitch)) step("turned the microphone off");
		if (await switchOff(page, TEAMS.cameraSwitch)) step("turned the camera off");
		await dismissAny(page, TEAMS.popups);
		const join = await enabledJoin(page, again ? 1_000 : JOIN_ENABLED_WAIT_MS);
		if (!join) throw new LayoutChanged("Teams join button not found (prejoin-join-button)");
		await press(join);
		await join.dispose();
		step("clicked Join now");
		// V #467 (join.ts step 6c): in the light flow the audio/video prompt comes after the click and
		// leaves Join now behind it, the request unsent: clear it and click Join now again.
		const until = Date.now() + PROMPT_WATCH_MS;
		while (Date.now() < until) {
			if (await dismissAny(page, TEAMS.popups)) {
				step("dismissed the audio/video prompt");
				const joinAgain = await enabledJoin(page, 1_000).catch(() => null);
				if (joinAgain) {
					await press(joinAgain);
					await joinAgain.dispose();
					step("clicked Join now again");
				}
				return;
			}
			if (!(await joinOffered(page))) return;
			await sleep(150);
		}
	},

	joinOffered,

	async dismissInterruptions(page) {
		return (await dismissAny(page, TEAMS.popups)) || rejoinAfterConnectionFailure(page);
	},

	async recoverLobby(page) {
		// A (check_if_waiting_room_connection_failed): media off again, then Join now if it is enabled.
		if (!(await joinOffered(page))) return false;
		await switchOff(page, TEAMS.micSwitch);
		await switchOff(page, TEAMS.cameraSwitch);
		const join = await enabledJoin(page, 0).catch(() => null);
		if (!join) return false;
		await press(join);
		await join.dispose();
		return true;
	},

	snapshot: (page, context) => readSnapshot(page, TEAMS.probe, context),

	async prepareCall(page) {
		await dismissAny(page, TEAMS.popups);
		const captions = (await captionsOn(page)) || (await turnOnCaptions(page));
		if (!(await findVisible(page, TEAMS.chatInput))) await clickIfVisible(page, TEAMS.chatButton);
		await keepAlive(page);
		return captions && (await findVisible(page, TEAMS.chatInput)) !== null;
	},

	async sendChat(page, text) {
		let input = await findVisible(page, TEAMS.chatInput);
		if (!input) {
			await clickIfVisible(page, TEAMS.chatButton);
			input = await waitVisible(page, TEAMS.chatInput, 3_000);
		}
		if (!input) throw new Error("Teams chat input not found");
		await input.click();
		await input.type(text);
		await input.press("Enter");
	},

	async setMicrophone(page, on) {
		await clickIfVisible(page, on ? TEAMS.micMuted : TEAMS.micLive);
	},

	async setCamera(page, on) {
		await clickIfVisible(page, on ? TEAMS.cameraOff : TEAMS.cameraLive);
	},

	async leave(page) {
		if (await clickIfVisible(page, TEAMS.leave)) return;
		await clickIfVisible(page, TEAMS.lobbyCancel);
	},

	startPresenting: (page, log) => startPresenting(page, TEAMS.share, log),
	stopPresenting: (page) => stopPresenting(page, TEAMS.share),
};
