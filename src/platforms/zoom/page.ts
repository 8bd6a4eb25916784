/**
 * The Zoom web client's meeting page as the bot reads it: hooks and texts as app.zoom.us shows
 * them (../../../docs/sandbox.md#how-each-platform-is-imitated, /work/shared/platforms.md §3).
 */
import type { ProbeTable, UiTexts } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";

export const ZOOM_PAGE = {
	cookieAccept: ["#onetrust-accept-btn-handler"],
	nameInput: ["#input-for-name", "#inputname"],
	passcodeInput: ['input[placeholder*="passcode" i]', "#input-for-pwd"],
	audioMute: ['#preview-audio-control-button[aria-label="Mute"]'],
	videoStop: ['#preview-video-control-button[aria-label="Stop Video"]'],
	joinButton: ["button.preview-join-button", "#joinBtn"],
	// The permission explainer (can come twice) and "Got it" tooltips; never a bare "OK", which ends screens use.
	popups: { selectors: [] as string[], texts: { en: ["Allow", "Got it"] } satisfies UiTexts },
	subtitles: ["#live-transcription-subtitle", ".live-transcription-subtitle__box"],
	moreControls: ["div[aria-label='More meeting control ']", "button[aria-label='More meeting control ']"],
	captionsMenu: ["a[aria-label='Captions']"],
	showCaptions: { en: ["Show Captions"] } satisfies UiTexts,
	participantsButton: ['button[aria-label*="participants list"]'],
	participantsPane: [".participants-ul"],
	chatButton: ['button[aria-label*="chat panel"]'],
	chatInput: ['.chat-rtf-box__editor-outer [contenteditable="true"]'],
	chatSend: ['button[aria-label="send"]'],
	footerMute: ['button.join-audio-container__btn[aria-label="mute my microphone"]'],
	footerUnmute: ['button.join-audio-container__btn[aria-label="unmute my microphone"]'],
	footerStopVideo: ['button.send-video-container__btn[aria-label="stop my video"]'],
	footerStartVideo: ['button.send-video-container__btn[aria-label="start my video"]'],
	leave: ['button[aria-label="Leave"]'],
	// Empty aria-label; pressing Enter on it cancels, so it must be clicked.
	leaveConfirm: ["button.leave-meeting-options__btn--danger"],
	probe: {
		states: [
			// Shown both for a removal and for a denial from the waiting room; the session tells them apart.
			{ state: "removed", texts: { en: ["You have been removed"] } },
			{ state: "ended", texts: { en: ["This meeting has been ended by host"] } },
			{ state: "not_found", texts: { en: ["This meeting link is invalid (3,001)"] } },
			{ state: "bot_wall", texts: { en: ["We detected you may be a bot"] } },
			{ state: "sign_in_required", urls: ["zoom.us/signin"], texts: { en: ["Only authenticated users can join"] } },
			{ state: "left", texts: { en: ["You have left the meeting"] } },
			{
				state: "lobby",
				texts: {
					en: [
						"Please wait, the meeting host will let you in soon.",
						"Waiting for the host to start this meeting",
						"Host has joined. We've let them know you're here",
					],
				},
			},
			{ state: "in_call", selectors: ['.footer button[aria-label="Leave"]', "button.join-audio-container__btn"] },
			{ state: "prejoin", selectors: ["#input-for-name", "#inputname"] },
		],
		participantText: [
			".live-transcription-subtitle__box",
			"#live-transcription-subtitle",
			".new-chat-message__container",
			".participants-ul",
			".video-avatar__avatar-footer",
		],
		captions: {
			regions: ["#live-transcription-subtitle", ".live-transcription-subtitle__box"],
			layouts: [
				{ kind: "entries", entry: ".live-transcription-subtitle__item", speaker: null, text: [".live-transcription-subtitle__item"] },
			],
		},
		speakers: {
			tiles: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame"],
			speaking: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame--active"],
			name: [{ selector: ".video-avatar__avatar-footer > span" }],
		},
		participants: {
			items: [".participants-ul > li"],
			name: [{ selector: ".participants-item__display-name" }],
			self: [".participants-item__name-label"],
			visibleOnly: false,
		},
		chat: {
			messages: [".new-chat-message__container"],
			text: [".new-chat-message__text-box"],
			sender: [{ selector: ".chat-item__sender" }],
			inheritSender: true,
		},
	} satisfies ProbeTable,
	/**
	 * Presenting (share-facts.ts). No maintained peer shares on the Zoom web client (Attendee
	 * uses the Meeting SDK's own API): the footer's share button, `sharing-entry-button-container`
	 * labelled "Share" (older "Share Screen"), and the notice a guest gets when the host allows
	 * only the host to share are the web client's own.
	 */
	share: {
		start: ["button.sharing-entry-button-container", 'button[aria-label="Share"]', 'button[aria-label="Share Screen"]'],
		choices: {},
		stop: ['button[aria-label="Stop Share"]', 'button[aria-label="Stop sharing"]'],
		stopTexts: { en: ["Stop Share"] },
		refusal: { en: ["Host disabled participant screen sharing"] },
		refusalWithin: ['[role="alert"]', '[role="tooltip"]', ".zm-modal", '[role="dialog"]'],
	} satisfies ShareFacts,
};
