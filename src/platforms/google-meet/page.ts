/**
 * Google Meet's meeting page as the bot reads it: hooks and texts as meet.google.com shows them
 * to the maintained bots (A, V, S, B: see texts.ts), stable hooks first (jsname, roles, structure),
 * then aria-labels and texts in every language the bot knows, obfuscated class names last
 * (../../../docs/sandbox.md#google-meet, /work/shared/platforms.md §1).
 */
import { allTexts, type ProbeTable, type UiTexts } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";
import { MEET_TEXTS as T } from "./texts.ts";

/** Elements whose aria-label starts with one of the texts, in any case (Meet may add a shortcut hint after the label). */
const labelled = (tag: string, texts: UiTexts): string[] => allTexts(texts).map((text) => `${tag}[aria-label^="${text}" i]`);

/**
 * Where an ending shows: A reads removal inside `.roSPhc`; the title and dialogs are the fallbacks
 * for a renamed class. Never the whole page: captions, chat and a meeting's title are anyone's words.
 */
const OUTCOME_SCREEN = [".roSPhc", "h1", "h2", '[role="heading"]', '[role="dialog"]', '[role="alertdialog"]'];

/** The self preview's "Backgrounds and effects" button carries `data-participant-id` too (V `admission.ts`): never a person. */
const NOT_EFFECTS = allTexts(T.effects)
	.map((text) => `:not([aria-label^="${text}" i])`)
	.join("");

const NAME_INPUT = [
	// V `googleNameInputSelectors`: the pre-join form's one text field, by structure first.
	'input[jsname][type="text"]',
	'input[type="text"]:not([aria-hidden="true"])',
	...labelled('input[type="text"]', T.yourName),
];

const CAPTION_REGIONS = [
	...allTexts(T.captionsRegion).map((text) => `div[role="region"][aria-label="${text}" i]`),
	// Older pages and third-party scrapers: the captions' jsname and jscontroller wrappers.
	'div[jsname="dsyhDe"]',
	'div[jscontroller="D1tHje"]',
	".a4cQT",
];

export const MEET_PAGE = {
	nameInput: NAME_INPUT,
	micIsOn: labelled("", T.micIsOn),
	micIsOff: labelled("", T.micIsOff),
	cameraIsOn: labelled("", T.cameraIsOn),
	cameraIsOff: labelled("", T.cameraIsOff),
	// A: a button, or the span inside one, whose text is the label (never a span outside any button).
	joinButtons: "button, [role=button], button span, [role=button] span",
	joinTexts: T.join,
	/** A's notices: accepted only inside a modal dialog that says one of them, never one that asks for consent. */
	notices: { dialogs: ['div[aria-modal="true"][role="dialog"]'], texts: T.notices, ok: ['button[data-mdc-dialog-action="ok"]'] },
	gotIt: T.gotIt,
	consent: T.notesConsent,
	captionsOff: labelled("button", T.turnOnCaptions),
	captionsOn: labelled("button", T.turnOffCaptions),
	leave: ['[jsname="CQylAd"]', ...labelled("button", T.leaveCall)],
	leaveConfirm: T.leaveConfirm,
	chatButton: labelled("button", T.chatWithEveryone),
	// A's label, B's label and placeholder, then the panel's only textarea.
	chatInput: [
		...labelled("textarea", T.sendMessage),
		...allTexts(T.sendMessage).map((text) => `textarea[placeholder="${text}" i]`),
		'textarea:not([aria-hidden="true"])',
	],
	/** A `select_language`: More options → Settings → the Captions tab's `li[data-value=<code>]`, clicked in the DOM. */
	moreOptions: ['button[jsname="NakZHc"]', ...labelled("button", T.moreOptions)],
	settingsItem: { candidates: 'li span, [role="menuitem"] span', texts: T.settings },
	captionLanguages: ['ul[aria-label="Meeting language"] li[data-value]', "li[data-value]"],
	closeDialog: labelled("button", T.closeDialog),
	probe: {
		states: [
			{ state: "removed", texts: T.removed, within: OUTCOME_SCREEN },
			{ state: "denied", texts: T.denied, within: OUTCOME_SCREEN },
			{ state: "unanswered", texts: T.unanswered, within: OUTCOME_SCREEN },
			// A: "You left the meeting" while asking to join "happens if someone actively denied our request".
			{ state: "denied", texts: T.left, within: OUTCOME_SCREEN, beforeAdmission: true },
			{ state: "ended", texts: T.ended, within: OUTCOME_SCREEN },
			{ state: "not_found", texts: T.notFound, within: OUTCOME_SCREEN },
			{ state: "bot_wall", texts: T.botWall, within: OUTCOME_SCREEN },
			{ state: "sign_in_required", urls: ["accounts.google.com/"] },
			{ state: "left", texts: T.left, within: OUTCOME_SCREEN },
			// Gemini's consent prompt is no screen the bot may pass by itself (V #429): it asks for help while it shows.
			{ state: "unknown", texts: T.notesConsent, within: ['[role="dialog"]', '[role="alertdialog"]'] },
			// A visible lobby indicator wins over anything that looks in-call (the toolbar is there in the lobby too).
			{
				state: "lobby",
				texts: T.lobby,
				selectors: ['[aria-label*="waiting room" i]', '[aria-label*="Asking to be let in" i]', '[aria-label*="waiting for admission" i]'],
			},
			{
				state: "in_call",
				selectors: [
					...labelled("button", T.turnOnCaptions),
					...labelled("button", T.turnOffCaptions),
					"[data-self-name]",
					...labelled("button", T.share),
					`[data-participant-id]${NOT_EFFECTS} span.notranslate`,
				],
			},
			{ state: "prejoin", selectors: NAME_INPUT },
		],
		participantText: [
			...CAPTION_REGIONS,
			"[data-message-id]",
			// Older Vexa: a chat message group and its sender header sit outside the message itself.
			".Ss4fHf",
			".poVWob",
			"[data-participant-id]",
			"[data-self-name]",
			'[role="list"][aria-label="Participants"]',
		],
		captions: {
			regions: CAPTION_REGIONS,
			layouts: [
				// Third-party scrapers: today's entry `.nMcdL` (also `.nMcdL.bj4p3b`) and the older `.TBMuR`.
				{
					kind: "entries",
					entry: ".nMcdL, .TBMuR",
					speaker: [
						{ selector: ".NWpY1d" },
						{ selector: ".zs7s8d" },
						{ selector: ".KcIKyf" },
						{ selector: ".adE6rb" },
						{ selector: "span" },
					],
					text: [".ygicle", ".ygIcle", ".bh44bd", ".iTTPOb", '[jsname="tgaKEf"]', ":scope > div:last-of-type"],
				},
				// When every class is renamed: the region's rows, first span = speaker, last div = text (sanand0/tools gmeetcaptions and others).
				{ kind: "entries", entry: ":scope > div", speaker: [{ selector: "span" }], text: [":scope > div:last-of-type"] },
			],
		},
		speakers: {
			tiles: ["[data-participant-id]"],
			speaking: [".Oaajhc", ".HX2H7", ".wEsLMd", ".OgVli", '[data-audio-level]:not([data-audio-level="0"])'],
			name: [{ selector: "span.notranslate" }, { selector: "[data-self-name]", attribute: "data-self-name" }],
		},
		// Tiles, not the People panel: the side panel shows one of People or Chat at a time.
		participants: {
			items: ["[data-participant-id]"],
			name: [{ selector: "span.notranslate" }],
			self: ["[data-self-name]"],
			// V `gmeet-speakers.ts`: the bot is wherever its tile's id shows, found from the data-self-name marker.
			selfId: "data-participant-id",
			visibleOnly: false,
			// V's junk names (device ids, placeholder participants, host-control phrases) and the effects button's icon.
			notPeople: [
				"Google Participant (",
				"spaces/",
				"devices/",
				"let participants",
				"send messages",
				"turn on captions",
				"visual_effects",
				...allTexts(T.effects),
			],
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
