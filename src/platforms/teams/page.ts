/**
 * Microsoft Teams' meeting page (web) as the bot reads it: hooks and texts as teams.microsoft.com
 * shows them (../../../docs/sandbox.md#how-each-platform-is-imitated, /work/shared/platforms.md §2).
 */
import type { ProbeTable, UiTexts } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";

export const TEAMS_PAGE = {
	continueInBrowser: { en: ["Continue on this browser"] } satisfies UiTexts,
	nameInput: ['[data-tid="prejoin-display-name-input"]'],
	passcodeInput: ['[data-tid="prejoin-passcode-input"]', 'input[placeholder*="passcode" i]'],
	micOn: ['[data-tid="toggle-mute"][aria-checked="true"]'],
	cameraOn: ['[data-tid="toggle-video"][aria-checked="true"]'],
	joinButton: ['[data-tid="prejoin-join-button"]'],
	// Disabled while the lobby request stands; enabled again means the lobby connection dropped.
	joinButtonEnabled: ['[data-tid="prejoin-join-button"]:not([disabled])'],
	// The audio/video prompt can show before or after the Join click.
	popups: { selectors: [] as string[], texts: { en: ["Continue without audio or video"] } satisfies UiTexts },
	moreButton: ["#callingButtons-showMoreBtn"],
	captionsItems: { en: ["Captions", "Turn on live captions"] } satisfies UiTexts,
	chatButton: ["button#chat-button"],
	chatInput: ['[placeholder="Type a message"]'],
	micMuted: ['#microphone-button[data-state="mic-off"]'],
	micLive: ['#microphone-button[data-state="mic"]'],
	cameraOff: ['#video-button[data-state="call-video-off"]'],
	cameraLive: ['#video-button[data-state="call-video"]'],
	leave: ["#hangup-button", 'button[data-tid="hangup-main-btn"]', '[data-inp="hangup-button"]', 'button[aria-label="Leave"]'],
	lobbyCancel: ['[data-tid="prejoin-cancel-button"]'],
	probe: {
		states: [
			{ state: "removed", texts: { en: ["You've been removed from this meeting"] } },
			{ state: "denied", texts: { en: ["Sorry, but you were denied", "Your request to join was declined"] } },
			{
				state: "ended",
				texts: { en: ["The meeting has ended", "This meeting has ended"] },
				selectors: ['[data-tid="calling-e2ee-end-screen"]'],
			},
			{ state: "not_found", texts: { en: ["This meeting link is invalid"] } },
			{ state: "bot_wall", texts: { en: ["Verify you're a real person"] } },
			{ state: "sign_in_required", urls: ["login.microsoftonline.com/"] },
			{ state: "left", texts: { en: ["You left the meeting"] } },
			{
				state: "lobby",
				texts: { en: ["Someone will let you in soon", "Someone will let you in shortly", "You're in the lobby", "Waiting to be admitted"] },
			},
			{
				state: "in_call",
				selectors: ["#hangup-button", 'button[data-tid="hangup-main-btn"]', "#callingButtons-showMoreBtn"],
			},
			{ state: "prejoin", selectors: ['[data-tid="prejoin-display-name-input"]'], texts: { en: ["Continue on this browser"] } },
		],
		participantText: [
			'[data-tid="closed-caption-renderer-wrapper"]',
			'[data-tid="chat-pane-message"]',
			'[data-tid="roster"]',
			"[data-stream-type]",
		],
		captions: {
			regions: ['[data-tid="closed-caption-renderer-wrapper"]'],
			layouts: [
				{
					kind: "entries",
					entry: ".ui-chat__item",
					speaker: [{ selector: '[data-tid="author"]' }],
					text: ['[data-tid="closed-caption-text"]'],
				},
			],
		},
		speakers: {
			tiles: ["[data-stream-type][data-tid]"],
			speaking: ['[data-tid="voice-level-stream-outline"]'],
			name: [{ attribute: "data-tid" }],
		},
		participants: { items: ["[data-stream-type][data-tid]"], name: [{ attribute: "data-tid" }], self: [], visibleOnly: false },
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
