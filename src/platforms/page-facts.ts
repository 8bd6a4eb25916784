/**
 * How a platform's meeting page looks to a bot, as data: the screens it shows (which texts and
 * elements mean which state), where captions, speakers, participants and chat are, and the UI
 * texts the driver clicks by. Each platform's `page.ts` fills one `PageFacts`; the bot host's
 * in-page reader (bot-host/drivers/probe.ts) reads a whole page with it in one pass.
 *
 * Hooks are ordered lists, stable ones first (ids, `data-tid`, roles, aria-labels), obfuscated
 * class names and English text last, so a renamed hook falls back to the next one. Texts are
 * matched case-insensitively as substrings, curly apostrophes read as straight ones.
 */

/** The UI languages every text list covers; the bot pins English, but a page may still show another. */
export const UI_LANGUAGES = ["en", "de", "fr", "es", "pt"] as const;
export type UiLanguage = (typeof UI_LANGUAGES)[number];

/** One UI text (a sentence, a button label) in each language the bot knows. */
export type UiTexts = Readonly<Partial<Record<UiLanguage, readonly string[]>>>;

/** Every language's variants of a text, in one list (English first). */
export function allTexts(texts: UiTexts): string[] {
	return UI_LANGUAGES.flatMap((language) => texts[language] ?? []);
}

/**
 * What the meeting page shows right now (the room's status is a different thing). `removed`
 * before admission is a denial on platforms that show the same screen for both (Zoom); the
 * session decides that from its own history.
 */
export type PageState =
	| "prejoin"
	| "lobby"
	/** The meeting has not started: the host is not there yet (Zoom's 3,001 page, Meet's "waiting for the host"). */
	| "waiting_for_host"
	| "in_call"
	| "denied"
	/** The platform gave up on the lobby request itself (no one answered it). */
	| "unanswered"
	| "removed"
	| "ended"
	| "not_found"
	/** The platform ended the call with an encryption error of its own (Teams' end-to-end encryption screen). */
	| "encryption_error"
	| "sign_in_required"
	| "bot_wall"
	| "left"
	| "unknown";

/**
 * One screen and what shows it. Any of its tests matching is enough; the first rule that matches
 * wins, so outcomes come first, then waiting screens, then in-call evidence, then the pre-join.
 */
export interface StateRule {
	state: PageState;
	/**
	 * Visible text that shows the state: only inside `within` when given (the outcome screen's own
	 * elements), else anywhere on the page outside what participants write (`participantText`).
	 */
	texts?: UiTexts;
	within?: readonly string[];
	/** Any visible element matching. */
	selectors?: readonly string[];
	/** The page's address (host and path) contains one of these: a redirect to a sign-in or post-meeting page. */
	urls?: readonly string[];
	/** The document's title contains one of these (an error page known by its title: Zoom's "Error - Zoom"). */
	titles?: UiTexts;
	/** The page is a web page on none of these hosts (nor under them): a redirect off the platform. */
	offHosts?: readonly string[];
	/**
	 * The rule holds only once the bot has been in the call this long (ms): redirects during a
	 * platform's audio set-up right after admission are not an ending.
	 */
	admittedForMs?: number;
	/**
	 * The rule holds only before the bot was admitted: the same screen means something else once it
	 * was in the call (Meet's "You left the meeting" is a denial while the bot waits in the lobby).
	 */
	beforeAdmission?: boolean;
}

export interface NameSource {
	/** Selector inside the element; absent means the element itself. */
	selector?: string;
	/** Read this attribute instead of the text. */
	attribute?: string;
}

/**
 * Caption entries, one of two shapes: `entries`, one element per caption line holding its
 * speaker and its text; `paired`, speaker and text elements side by side in document order with
 * no element around each line (Teams' guest view), paired one speaker to the text that follows.
 */
export type CaptionLayout =
	| {
			kind: "entries";
			entry: string;
			speaker: readonly NameSource[] | null;
			text: readonly string[];
			/**
			 * The platform may reuse one element for the next line (Zoom's subtitle span): a text that
			 * no longer extends the element's previous one is a new line, not an edit of the old one.
			 */
			reusedEntry?: boolean;
	  }
	| { kind: "paired"; speaker: NameSource & { selector: string }; text: string };

export interface CaptionFacts {
	/** The caption area(s); only text inside them is read as captions, and changes there are watched. */
	regions: readonly string[];
	/** Ways to read the lines, tried in order: the first that finds any line is used. */
	layouts: readonly CaptionLayout[];
}

export interface SpeakerFacts {
	tiles: readonly string[];
	/** A tile is speaking if it (or something inside it) matches one of these. */
	speaking: readonly string[];
	/**
	 * Or if one of these elements inside it is drawn as a highlight: fully opaque with a blue
	 * border (on the element or its pseudo-element), where the platform keeps the outline in every
	 * tile and only lights it up for the speaker (Teams' voice-level outline).
	 */
	highlighted?: readonly { selector: string; pseudo?: "::before" | "::after" }[];
	/** Where the name is, tried in order. */
	name: readonly NameSource[];
}

export interface ParticipantFacts {
	items: readonly string[];
	name: readonly NameSource[];
	/** The bot's own entry: it matches, or holds something that matches, one of these. */
	self: readonly string[];
	/**
	 * The attribute that names a participant across the page (Meet's `data-participant-id`): every
	 * entry with the same value as the bot's own (the entry around a `self` marker) is the bot too,
	 * whatever name it shows (a second self view labelled "You").
	 */
	selfId?: string;
	visibleOnly: boolean;
	/** Entries whose name contains one of these (case-insensitive) are not people (screen-share tiles, device ids). */
	notPeople?: readonly string[];
	/**
	 * A regular expression (source) a whole name matches when it is a machine id, not a person's
	 * name (Teams' `video-stream-2`): such a name source is skipped for the next one, for
	 * participants and speakers alike.
	 */
	machineName?: string;
}

export interface ChatFacts {
	messages: readonly string[];
	text: readonly string[];
	/** `closest`: the element around the message that holds the sender (a group header). */
	sender: readonly (NameSource & { closest?: string })[];
	/** A message without a sender of its own is the previous sender's (grouped runs). */
	inheritSender: boolean;
}

/** Everything the in-page reader needs to read one platform's meeting page. */
export interface ProbeTable {
	states: readonly StateRule[];
	/**
	 * Where participants' own words and names show (captions, chat, tiles, the roster): text in
	 * these never decides a state, so a participant saying "the meeting has ended" ends nothing.
	 */
	participantText: readonly string[];
	captions: CaptionFacts;
	speakers: SpeakerFacts;
	participants: ParticipantFacts;
	chat: ChatFacts;
}
