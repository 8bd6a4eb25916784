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
 * The join screen is there but a control the driver needs is not where it looks (the platform
 * changed its layout): the bot asks for help (`layout_changed`) and tries again, rather than fail.
 */
export class LayoutChanged extends Error {
	override readonly name = "LayoutChanged";
}

/**
 * The join screen and its controls are there, but the platform is not ready to take the join
 * yet (Zoom's Join still disabled a while after the name was typed): the bot tries again a
 * moment later, within the join deadline, rather than fail.
 */
export class JoinNotReady extends Error {
	override readonly name = "JoinNotReady";
}

/** What a driver may tell while it sets up the call. */
export interface PrepareOptions {
	/** What the driver just did or found, in words (the bot's step log): e.g. captions the host turned off. */
	step?: (words: string) => void;
}

export interface MeetingDriver {
	readonly platform: Platform;
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
	prepareCall(page: Page, options?: PrepareOptions): Promise<boolean>;
	/**
	 * While the page says the host has not started the meeting, re-open the join link this often
	 * (Zoom's "(3,001)" page never changes by itself); absent: the page updates itself.
	 */
	readonly hostRecheckMs?: number;
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
