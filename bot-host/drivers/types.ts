/** One interface for every platform driver; the bot session only speaks this. */
import type { Page } from "puppeteer-core";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import type { PageState } from "../../src/platforms/page-facts.ts";
import type { ProbeContext } from "./probe.ts";

export type { PageState } from "../../src/platforms/page-facts.ts";

export interface CaptionLine {
	/** Stable for as long as the caption entry stays in the DOM. */
	key: string;
	/** Null where the platform's captions carry no name (Zoom web client). */
	speaker: string | null;
	text: string;
}

export interface ChatLine {
	sender: string;
	text: string;
}

export interface MeetingSnapshot {
	state: PageState;
	captions: CaptionLine[];
	activeSpeakers: string[];
	/** Everyone else in the call, without the bot itself. */
	participants: string[];
	chat: ChatLine[];
}

export interface JoinOptions {
	botName: string;
	passcode: string | null;
	/** What the driver just did or saw, in words (the bot's step log; no secrets, no passcode). */
	step?: (words: string) => void;
	/** A try again on a screen that has been there a while: controls are not waited for long. */
	again?: boolean;
}

/**
 * Which remote audio is the meeting (page-media.js `startCapture`): the platform's own server mix,
 * a track (or stream) whose id starts with `mainTrack`, when it sends a redundant copy beside it
 * (Teams); every track after `fallbackAfterMs` without one, so a renamed mix costs doubled audio,
 * never silence.
 */
export interface AudioCapture {
	mainTrack: string;
	fallbackAfterMs: number;
}

/**
 * The join screen is there but a control the driver needs is not where it looks (the platform
 * changed its layout): the bot asks for help (`layout_changed`) and tries again, rather than fail.
 */
export class LayoutChanged extends Error {
	override readonly name = "LayoutChanged";
}

export interface MeetingDriver {
	readonly platform: Platform;
	/** Only the platform's mix of the meeting audio; absent: every remote track is the meeting. */
	readonly audioCapture?: AudioCapture;
	/** The URL the bot opens: e.g. Zoom links rewritten to the web client with the passcode. */
	joinUrl(meetingUrl: string, passcode: string | null): string;
	/**
	 * Fill the pre-join screen (name, mic and camera off) and ask to join. Throws LayoutChanged when
	 * the name field or the join button cannot be found; may be called again on the same screen.
	 */
	join(page: Page, options: JoinOptions): Promise<void>;
	/** One reading of the page: its state, captions, speakers, participants and chat. */
	snapshot(page: Page, context: ProbeContext): Promise<MeetingSnapshot>;
	/**
	 * Once admitted: captions on, and the panels the snapshot reads opened. False when it could
	 * not confirm that (a pop-up in the way); the session tries again.
	 */
	prepareCall(page: Page): Promise<boolean>;
	/**
	 * On the pre-join screen after the bot asked to join: the page offers Join again (enabled, no
	 * lobby), so the request was never sent (a dialog swallowed it) or was dropped; the bot asks again.
	 */
	joinOffered?(page: Page): Promise<boolean>;
	/** While in the lobby: notice a dropped lobby connection and ask to join again (true if it did). */
	recoverLobby?(page: Page): Promise<boolean>;
	/** Click away the platform's pop-ups (notices, permission prompts); true if one was dismissed. */
	dismissInterruptions(page: Page): Promise<boolean>;
	sendChat(page: Page, text: string): Promise<void>;
	/** In-call microphone and camera toggles (unmuted only while speaking or showing). */
	setMicrophone(page: Page, on: boolean): Promise<void>;
	setCamera(page: Page, on: boolean): Promise<void>;
	leave(page: Page): Promise<void>;
}
