/** One interface for every platform driver; the bot session only speaks this. */
import type { ElementHandle, Page } from "puppeteer-core";
import type { Platform } from "../../src/bot-channel/protocol.ts";
import type { PageState } from "../../src/platforms/page-facts.ts";

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

/** Keys a driver presses by name: `SelectAll` is the platform's select-all chord (Ctrl+A). */
export type InputKey = "Enter" | "Tab" | "Escape" | "Backspace" | "SelectAll";

/**
 * How a driver clicks and types like a person. The bot host gives it the operating system's input
 * (the X server of the bot's own display: a real pointer moved along a path, real key presses;
 * bot/os-input.ts) where it can, else DevTools events, which put the pointer on an element
 * without moving it there and which a platform can tell from a person's (Google Meet refuses such
 * bots). `kind` says which.
 */
export interface PageInput {
	readonly kind: "os" | "devtools";
	/** Moves the pointer onto the element (scrolled into view first if need be) and clicks it. */
	click(element: ElementHandle<Element>): Promise<void>;
	/** Types into whatever has the focus, key by key, at a person's pace. */
	type(text: string): Promise<void>;
	press(key: InputKey): Promise<void>;
}

export interface JoinOptions {
	botName: string;
	passcode: string | null;
	/** What the driver just did or saw, in words (the bot's step log; no secrets, no passcode). */
	step?: (words: string) => void;
	/** A try again on a screen that has been there a while: controls are not waited for long. */
	again?: boolean;
	/** Clicks and typing where a platform watches how they are made (Meet's join screen). */
	input: PageInput;
}

/** What the bot knows about the call when it gets it ready (the spawn request's choices). */
export interface CallOptions {
	/** The meeting's spoken language (ISO code, "de") when the request forces one; captions are set to it where the platform lets a guest. */
	language?: string | null;
	/** What the driver just did or found, in words (the bot's step log): e.g. captions the host turned off. */
	step?: (words: string) => void;
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

/**
 * The join screen and its controls are there, but the platform is not ready to take the join
 * yet (Zoom's Join still disabled a while after the name was typed): the bot tries again a
 * moment later, within the join deadline, rather than fail.
 */
export class JoinNotReady extends Error {
	override readonly name = "JoinNotReady";
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
	prepareCall(page: Page, options?: CallOptions): Promise<boolean>;
	/**
	 * On the pre-join screen after the bot asked to join: the page offers Join again (enabled, no
	 * lobby), so the request was never sent (a dialog swallowed it) or was dropped; the bot asks again.
	 */
	joinOffered?(page: Page): Promise<boolean>;
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
	/**
	 * Presents the page's virtual screen (the shared content, already drawn on it) with the
	 * platform's own share control: `screen_share` once the platform took it, null when it cannot
	 * (no share control for a guest, a disabled one, the host's refusal); the caller then uses the camera.
	 */
	startPresenting(page: Page, log?: (line: string) => void): Promise<"screen_share" | null>;
	/** Ends the screen share started by startPresenting. */
	stopPresenting(page: Page): Promise<void>;
}

/** What the reader needs to know beside the table. */
export interface ProbeContext {
	botName: string;
	/** How long the bot has been in the call; null before admission. */
	admittedForMs: number | null;
	/** Push caption changes through `__botCaptionsChanged` from now on (in the call, with captions read). */
	watchCaptions?: boolean;
}
