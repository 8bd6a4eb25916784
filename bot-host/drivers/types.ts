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

/** What the bot knows about the call when it gets it ready (the spawn request's choices). */
export interface CallOptions {
	/** The meeting's spoken language (ISO code, "de") when the request forces one; captions are set to it where the platform lets a guest. */
	language?: string | null;
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
	prepareCall(page: Page, options?: CallOptions): Promise<boolean>;
	/** While in the lobby: notice a dropped lobby connection and ask to join again (true if it did). */
	recoverLobby?(page: Page): Promise<boolean>;
	/** Click away the platform's pop-ups (notices, permission prompts); true if one was dismissed. */
	dismissInterruptions(page: Page): Promise<boolean>;
	sendChat(page: Page, text: string): Promise<void>;
	/** In-call microphone and camera toggles (unmuted only while speaking or showing). */
	setMicrophone(page: Page, on: boolean): Promise<void>;
	setCamera(page: Page, on: boolean): Promise<void>;
	leave(page: Page): Promise<void>;
	/**
	 * Presents the page's virtual screen (the shared content, already drawn on it) with the
	 * platform's own share control: `screen_share` once the platform took it, null when it cannot
	 * (no share control for a guest, a disabled one, the host's refusal); the caller then uses the camera.
	 */
	startPresenting(page: Page, log?: (line: string) => void): Promise<"screen_share" | null>;
	/** Ends the screen share started by startPresenting. */
	stopPresenting(page: Page): Promise<void>;
}
