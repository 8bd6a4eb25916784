/**
 * Google Meet's meeting page as the bot reads it: hooks and texts as meet.google.com shows them
 * (../../../docs/sandbox.md#how-each-platform-is-imitated, /work/shared/platforms.md §1).
 */
import type { ProbeTable, UiTexts } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";

export const MEET_PAGE = {
	nameInput: ['input[jsname][type="text"][aria-label="Your name"]', 'input[type="text"][aria-label="Your name"]'],
	micOn: ['[aria-label="Turn off microphone"]'],
	micOff: ['[aria-label="Turn on microphone"]'],
	cameraOn: ['[aria-label="Turn off camera"]'],
	cameraOff: ['[aria-label="Turn on camera"]'],
	joinButtons: "button, [role=button], span",
	joinTexts: {
		en: ["Ask to join", "Ask to join anyway", "Join now", "Join the call now", "Join anyway", "Join here too", "Switch here"],
	} satisfies UiTexts,
	// Recording / transcription notices; never the "take notes for me" consent gate.
	popups: { selectors: ['button[data-mdc-dialog-action="ok"]'], texts: { en: ["Got it"] } satisfies UiTexts },
	captionsOff: ['button[aria-label="Turn on captions"]'],
	captionsOn: ['button[aria-label="Turn off captions"]'],
	leave: ['button[jsname="CQylAd"][aria-label="Leave call"]', 'button[aria-label="Leave call"]'],
	leaveConfirm: { en: ["Just leave the meeting"] } satisfies UiTexts,
	chatButton: ['button[aria-label="Chat with everyone"]'],
	chatInput: ['textarea[aria-label="Send a message"]'],
	probe: {
		states: [
			{ state: "removed", texts: { en: ["You've been removed from the meeting"] } },
			{ state: "denied", texts: { en: ["Someone in the call denied your request to join"] } },
			{ state: "unanswered", texts: { en: ["No one responded to your request to join the call"] } },
			{ state: "ended", texts: { en: ["Your host ended the meeting for everyone", "Meeting ended", "Call ended"] } },
			{ state: "not_found", texts: { en: ["Check your meeting code", "Invalid video call name"] } },
			{ state: "bot_wall", texts: { en: ["You can't join this meeting"] } },
			{ state: "sign_in_required", urls: ["accounts.google.com/"] },
			{ state: "left", texts: { en: ["You left the meeting"] } },
			// A visible lobby indicator wins over anything that looks in-call (the toolbar is there in the lobby too).
			{
				state: "lobby",
				texts: { en: ["Asking to be let in", "You'll join the call when someone lets you in", "Waiting for the host to join"] },
			},
			{
				state: "in_call",
				selectors: [
					'button[aria-label="Turn on captions"]',
					'button[aria-label="Turn off captions"]',
					"[data-self-name]",
					'button[aria-label="Present now"]',
					"[data-participant-id] span.notranslate",
				],
			},
			{ state: "prejoin", selectors: ['input[aria-label="Your name"]'] },
		],
		participantText: [
			'div[role="region"][aria-label="Captions"]',
			"[data-message-id]",
			"[data-participant-id]",
			'[role="list"][aria-label="Participants"]',
		],
		captions: {
			regions: ['div[role="region"][aria-label="Captions"]'],
			layouts: [{ kind: "entries", entry: ".nMcdL", speaker: [{ selector: ".NWpY1d" }], text: [".ygicle"] }],
		},
		speakers: {
			tiles: ["[data-participant-id]"],
			speaking: [".Oaajhc", ".HX2H7", ".wEsLMd", ".OgVli", '[data-audio-level]:not([data-audio-level="0"])'],
			name: [{ selector: "span.notranslate" }],
		},
		// Tiles, not the People panel: the side panel shows one of People or Chat at a time.
		participants: {
			items: ["[data-participant-id]"],
			name: [{ selector: "span.notranslate" }],
			self: ["[data-self-name]"],
			visibleOnly: false,
		},
		chat: {
			messages: ["[data-message-id]"],
			text: [".jO4O1"],
			sender: [{ closest: ".Ss4fHf", selector: ".poVWob" }],
			inheritSender: false,
		},
	} satisfies ProbeTable,
	/**
	 * Presenting (share-facts.ts). Attendee (google_meet_chromedriver_payload.js) presses
	 * "Share screen" and stops through the "Stop presenting" button, found by its span's jsname
	 * V67aGc; Vexa (googlemeet/selectors.ts) also knows the older "Present now", whose menu
	 * offers "Your entire screen" or "A tab".
	 */
	share: {
		start: [
			'button[aria-label="Share screen"]',
			'div[aria-label="Share screen"]',
			'button[aria-label*="Share screen"]',
			'button[aria-label="Present now"]',
			'button[aria-label*="Present now"]',
		],
		choices: { en: ["Your entire screen", "A tab"] },
		stop: ['button:has(span[jsname="V67aGc"])'],
		stopTexts: { en: ["Stop presenting"] },
		refusal: {},
		refusalWithin: [],
	} satisfies ShareFacts,
};
