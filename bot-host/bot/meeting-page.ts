/**
 * The bot's page before the platform's join screen: the scripts every document gets, and
 * opening the meeting link, where a page that does not load ends the stay with what went wrong,
 * and leaving it.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import type { HTTPResponse, Page } from "puppeteer-core";
import { type CaptionChange, captionFeed } from "../drivers/probe.ts";
import type { MeetingDriver } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";
import { type Ending, endingFor, navigationFailure, outcomeOf } from "./outcomes.ts";

/** Virtual mic/camera and meeting-audio capture, injected before the platform's scripts. */
const PAGE_MEDIA_SCRIPT = readFileSync(path.join(import.meta.dirname, "page-media.js"), "utf8");
const NAVIGATION_TIMEOUT_MS = 30_000;

/** Scripts every document of the page runs first, and the hooks meeting audio, its level and caption changes arrive through. */
export async function preparePage(
	page: Page,
	hooks: {
		onAudioChunk: (base64: string) => void;
		/** Milliseconds of the last second or so in which people were heard (page-media.js's level meter). */
		onHeard: (voicedMs: number) => void;
		onCaptions: (change: CaptionChange) => void;
	},
): Promise<void> {
	// esbuild-style name helpers may appear in functions serialised into the page.
	await page.evaluateOnNewDocument("globalThis.__name = globalThis.__name || ((f) => f);");
	await page.exposeFunction("__botAudioChunk", hooks.onAudioChunk);
	// Whatever the page sends, only a bounded number is taken.
	await page.exposeFunction("__botHeard", (ms: unknown) => {
		if (typeof ms === "number" && Number.isFinite(ms)) hooks.onHeard(Math.min(Math.max(ms, 0), 5_000));
	});
	await captionFeed(page, hooks.onCaptions);
	await page.evaluateOnNewDocument(PAGE_MEDIA_SCRIPT);
}

/** Opens the join link: null once it loaded, or the ending when it did not or loaded as an HTTP error. */
export async function openMeetingPage(page: Page, driver: MeetingDriver, url: string, botName: string): Promise<Ending | null> {
	let response: HTTPResponse | null;
	try {
		response = await page.goto(url, { waitUntil: "domcontentloaded", timeout: NAVIGATION_TIMEOUT_MS });
	} catch (err) {
		return endingFor("join_failure", `could not load the meeting page: ${navigationFailure(err, NAVIGATION_TIMEOUT_MS)}`);
	}
	const status = response?.status() ?? 0;
	if (status < 400) return null;
	// The platform's own error screen (not found, bot check) says more than its status code.
	const snap = await driver.snapshot(page, { botName, admittedForMs: null }).catch(() => null);
	// A bot wall or sign-in wall served as an error is a screen a person can get the bot past: the bot asks for help.
	if (snap?.state === "bot_wall" || snap?.state === "sign_in_required") return null;
	return (snap && outcomeOf(snap.state, "joining")) ?? endingFor("join_failure", `the meeting page answered ${status}`);
}

/** Click leave, then give the platform a moment to take the bot out before Chromium closes. */
export async function leaveMeeting(page: Page, driver: MeetingDriver, botName: string, log: (line: string) => void): Promise<void> {
	try {
		await driver.leave(page);
		const deadline = Date.now() + 5_000;
		while (Date.now() < deadline) {
			const { state } = await driver.snapshot(page, { botName, admittedForMs: null });
			if (state !== "in_call" && state !== "lobby") return;
			await new Promise((resolve) => setTimeout(resolve, 100));
		}
		log("the page still shows the meeting after leaving");
	} catch (err) {
		log(`leave failed: ${errorText(err)}`);
	}
}
