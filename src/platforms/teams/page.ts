/**
 * Microsoft Teams' meeting page (web) as the bot reads it: hooks as the maintained peers know them
 * (V = Vexa, A = Attendee, S = ScreenApp, B = Meeting BaaS; texts and their sources in texts.ts),
 * stable hooks first. /work/shared/platforms.md §2 and ../../../docs/sandbox.md#teams-web.
 */

import { allTexts, type ProbeTable } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";
import { TEAMS_TEXTS as T } from "./texts.ts";

const byLabel = (tag: string, texts: readonly string[]) => texts.map((text) => `${tag}[aria-label="${text}"]`);

/** The calling-retry screen (A: removal in its title, denial dismissed with its cancel button). */
const RETRY_SCREEN = ["#calling-retry-screen-title", "#calling-retry-screen-description", '[data-tid="calling-retry-screen"]'];
const CAPTION_REGIONS = [
	// V teamsCaptionSelectors.wrappers: the renderer wrapper mounts only once someone has spoken.
	'[data-tid="closed-caption-renderer-wrapper"]',
	'[data-tid="closed-caption-v2-virtual-list-content"]',
	'[data-tid="closed-captions-renderer"]',
];

export const TEAMS_PAGE = {
	texts: T,
	// S: the launcher's aria-labels (its texts are in T.continueInBrowser).
	launcher: byLabel("button", ["Join meeting from this browser", "Continue on this browser", "Join on this browser"]),
	// A, S: the data-tid; V: any name-like text field.
	nameInput: ['[data-tid="prejoin-display-name-input"]', 'input[placeholder*="name" i]'],
	passcodeInput: ['[data-tid="prejoin-passcode-input"]', 'input[placeholder*="passcode" i]'],
	// A: on when `aria-checked` or `checked` (a native input switch, as S's selectors show) is true.
	micSwitch: ['[data-tid="toggle-mute"]'],
	cameraSwitch: ['[data-tid="toggle-video"]'],
	joinButton: ['[data-tid="prejoin-join-button"]'],
	// V: the audio/video prompt's button by label before text (T.continueWithoutMedia).
	popups: {
		selectors: byLabel("button", T.continueWithoutMedia.en),
		texts: T.continueWithoutMedia,
	},
	// A: "we couldn't connect you" is retried; its screen's Rejoin button (idx: `calling-retry-rejoinbutton`).
	retryScreenTitle: ["#calling-retry-screen-title", "#calling-retry-screen-description"],
	rejoinButton: ['[data-tid="calling-retry-rejoinbutton"]'],
	// V enableTeamsLiveCaptions; A click_show_more_button.
	moreButton: ["#callingButtons-showMoreBtn", 'button[aria-label="More"]', 'button[aria-label="More options"]'],
	menuItems: '[role="menuitem"], [role="menuitemcheckbox"], [role="menuitemradio"]',
	// A click_captions_button: the organiser's path by id.
	languageAndSpeechItem: ["#LanguageSpeechMenuControl-id"],
	closedCaptionsItem: ["#closed-captions-button"],
	captionRegions: CAPTION_REGIONS,
	chatButton: ["button#chat-button", 'button[aria-label="Chat"]'],
	// A: aria-label or placeholder; idx: the editor's data-tid, whatever the language.
	chatInput: [...byLabel("", allTexts(T.typeAMessage)), '[placeholder="Type a message"]', '[data-tid="ckeditor"][contenteditable="true"]'],
	// A fires a mousemove every few minutes: Teams "stops receiving chat messages" on an idle page.
	keepAliveMs: 5_000,
	micMuted: ['#microphone-button[data-state="mic-off"]'],
	// Live builds show the open mic as `mic-volume-renderer` (third-party notes, 2026-09); older ones as `mic`.
	micLive: ['#microphone-button[data-state="mic-volume-renderer"]', '#microphone-button[data-state="mic"]'],
	cameraOff: ['#video-button[data-state="call-video-off"]'],
	cameraLive: ['#video-button[data-state="call-video"]'],
	// A: `[data-inp="hangup-button"], #hangup-button`; V: the data-tid and the aria-label.
	leave: ['[data-inp="hangup-button"]', "#hangup-button", 'button[data-tid="hangup-main-btn"]', 'button[aria-label="Leave"]'],
	lobbyCancel: ['[data-tid="prejoin-cancel-button"]'],
	/** Teams' server mix (V teams-main-audio.ts: track id `mainAudio…`; A: stream id containing it). */
	audioCapture: { mainTrack: "mainAudio", fallbackAfterMs: 15_000 },
	probe: {
		states: [
			{ state: "removed", texts: T.removed, within: ["#calling-retry-screen-title"] },
			{ state: "denied", texts: T.denied, within: [...RETRY_SCREEN, '[role="dialog"]', '[role="alertdialog"]'] },
			// A: "An encryption error occurred" on the e2ee end screen, a failure, not the host ending the meeting.
			{ state: "encryption_error", selectors: ['[data-tid="calling-e2ee-end-screen"]'] },
			{ state: "ended", texts: T.ended, within: RETRY_SCREEN },
			{ state: "left", texts: T.left, within: RETRY_SCREEN },
			{ state: "not_found", texts: T.notFound },
			{ state: "bot_wall", texts: T.botWall },
			// V auth-redirect.ts: the Microsoft sign-in hosts; A: the login form and the sign-in sentences.
			{
				state: "sign_in_required",
				texts: T.signIn,
				selectors: ['input[name="loginfmt"]'],
				urls: [
					"login.microsoftonline.com/",
					"login.microsoftonline.us/",
					"login.partner.microsoftonline.cn/",
					"login.microsoft.com/",
					"login.live.com/",
					"login.windows.net/",
					"login.microsoftonline.de/",
				],
			},
			{ state: "lobby", texts: T.lobby },
			{
				state: "in_call",
				selectors: ["#hangup-button", 'button[data-tid="hangup-main-btn"]', '[data-inp="hangup-button"]', "#callingButtons-showMoreBtn"],
			},
			{
				state: "prejoin",
				selectors: ['[data-tid="prejoin-display-name-input"]', '[data-tid="prejoin-join-button"]'],
				texts: T.continueInBrowser,
			},
		],
		participantText: [
			...CAPTION_REGIONS,
			'[data-tid="chat-pane-list"]',
			'[data-tid="chat-pane-message"]',
			'[data-tid="roster"]',
			"[data-stream-type]",
		],
		captions: {
			regions: CAPTION_REGIONS,
			layouts: [
				// V msteams-captions.ts: author and text atoms under the wrapper, paired in document order,
				// the one shape both the guest view (no per-line wrapper) and the organiser's share.
				{
					kind: "paired",
					speaker: { selector: '[data-tid="author"], [data-tid="caption-author"]' },
					text: '[data-tid="closed-caption-text"]',
				},
				// The organiser's view nests each line in a ChatMessageCompact (V; idx: `.fui-ChatMessageCompact`).
				{
					kind: "entries",
					entry: ".fui-ChatMessageCompact",
					speaker: [{ selector: '[data-tid*="author"]' }],
					text: ['[data-tid*="caption-text"]'],
				},
				// Older builds: `closed-captions-renderer` with Fluent chat items (idx, Teams v2 scrapers of 2024).
				{
					kind: "entries",
					entry: ".ui-chat__item",
					speaker: [{ selector: ".ui-chat__message__author" }],
					text: [".ui-chat__message__content", ".fui-StyledText"],
				},
			],
		},
		speakers: {
			tiles: ["[data-stream-type][data-tid]"],
			// The outline is in every tile (V, B): it speaks when B's and V's first signal shows, the
			// `vdi-frame-occlusion` class on the outline or above it, or B's lit outline.
			speaking: [
				'[data-tid="voice-level-stream-outline"].vdi-frame-occlusion',
				'.vdi-frame-occlusion [data-tid="voice-level-stream-outline"]',
			],
			highlighted: [{ selector: '[data-tid="voice-level-stream-outline"]', pseudo: "::before" }],
			name: [{ attribute: "data-tid" }],
		},
		participants: {
			// The tiles, and the roster panel's rows while it is open (V teamsRosterPanelSelectors).
			items: [
				"[data-stream-type][data-tid]",
				'[data-tid="roster"] [data-tid="roster-participant"]',
				'[data-tid="roster"] [role="treeitem"]',
			],
			name: [{ attribute: "data-tid" }, { selector: "span[title]", attribute: "title" }, { selector: '[data-tid*="display-name"]' }],
			self: [],
			visibleOnly: false,
			// V TEAMS_MACHINE_TOKEN: `video-stream-2`, `videoTile`, digit runs are ids, not names.
			machineName: "[a-z0-9]+(?:[-_][a-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+|\\d+",
		},
		chat: {
			messages: ['[data-tid="chat-pane-message"]'],
			text: ['[data-tid="messageBodyContent"]'],
			sender: [{ selector: '[data-tid="message-author-name"]' }],
			inheritSender: true,
		},
	} satisfies ProbeTable,
	/**
	 * Presenting (share-facts.ts), as Attendee (teams_chromedriver_payload.js) does it: the share
	 * button is `#screenshare-button`, or `#share-button` ("Share content") in the newer page, and
	 * "Stop sharing" ends it. An anonymous guest who may not present has no share button.
	 */
	share: {
		start: ["button#screenshare-button", "button#share-button"],
		choices: {},
		stop: ['button[aria-label="Stop sharing"]'],
		stopTexts: { en: ["Stop sharing"] },
		refusal: {},
		refusalWithin: [],
	} satisfies ShareFacts,
};
