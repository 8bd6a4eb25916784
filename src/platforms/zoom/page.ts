/**
 * The Zoom web client's meeting page as the bot reads it, from what the maintained peers know of
 * app.zoom.us: V = Vexa (core/meetings/modules/join/src/zoom/{selectors,join,admission,removal,
 * leave}.ts, zoom-capture/src/), older V = Vexa's services/vexa-bot/.../zoom/web/{selectors,
 * prepare}.ts (marked "verified from live DOM"), A = Attendee (bots/zoom_web_bot_adapter/
 * zoom_web_ui_methods.py, which drives the Meeting SDK's client view). Strings marked
 * (uncorroborated) are our translations of the English ones, found in no peer; the sandbox
 * carries the same mark (docs/sandbox.md#zoom-web-client).
 *
 * Labels (`*Labels`) are a control's whole aria-label or text, matched case-insensitively; the
 * screen texts in `probe.states` are substrings.
 */
import type { ProbeTable, UiTexts } from "../page-facts.ts";
import type { ShareFacts } from "../share-facts.ts";

/** The same words for every language (OK), or language-neutral ones. */
const OK: UiTexts = { en: ["OK"] };

export const ZOOM_PAGE = {
	/** V join.ts: the classic client's OneTrust banner covers the card; accept, else reject. */
	cookieAccept: ["#onetrust-accept-btn-handler", "#onetrust-reject-all-handler"],
	/** V join.ts: "Use microphone and camera", up to twice, before the name field; "Allow" lets audio flow. */
	permissionAllow: { en: ["Allow"], de: ["Zulassen"], fr: ["Autoriser"], es: ["Permitir"], pt: ["Permitir"] } satisfies UiTexts,
	/** V selectors.ts zoomPermissionDismissSelector: the fallback when there is no "Allow". Others (uncorroborated). */
	permissionSkip: {
		en: ["Continue without microphone and camera"],
		de: ["Ohne Mikrofon und Kamera fortfahren"],
		fr: ["Continuer sans micro ni caméra"],
		es: ["Continuar sin micrófono ni cámara"],
		pt: ["Continuar sem microfone e câmera"],
	} satisfies UiTexts,
	/** V selectors.ts: React client `#input-for-name`, classic client `#inputname`. */
	nameInput: ["#input-for-name", "#inputname", 'input[placeholder="Your Name" i]'],
	/** V join.ts passcodeInputSelector. */
	passcodeInput: ['input[placeholder*="passcode" i]', "#input-for-pwd", 'input[placeholder*="password" i]'],
	/** V: `#preview-audio-control-button` / `#preview-video-control-button`, clicked when the label says it is on. */
	previewAudio: ["#preview-audio-control-button"],
	previewVideo: ["#preview-video-control-button"],
	/** The preview mic's label while it is on ("Mute", V); others (uncorroborated). */
	micOnLabels: {
		en: ["Mute", "mute my microphone"],
		de: ["Stummschalten"],
		fr: ["Couper le son"],
		es: ["Silenciar"],
		pt: ["Desativar som"],
	} satisfies UiTexts,
	/** Its label while off: "Unmute" (older V prepare.ts), "unmute my microphone" (the web SDK's footer aria-label). */
	micOffLabels: {
		en: ["Unmute", "unmute my microphone"],
		de: ["Stummschaltung aufheben"],
		fr: ["Réactiver le son"],
		es: ["Reactivar audio"],
		pt: ["Ativar som"],
	} satisfies UiTexts,
	cameraOnLabels: {
		en: ["Stop Video", "stop my video"],
		de: ["Video stoppen"],
		fr: ["Arrêter la vidéo"],
		es: ["Detener video"],
		pt: ["Parar vídeo"],
	} satisfies UiTexts,
	cameraOffLabels: {
		en: ["Start Video", "start my video"],
		de: ["Video starten"],
		fr: ["Démarrer la vidéo"],
		es: ["Iniciar video"],
		pt: ["Iniciar vídeo"],
	} satisfies UiTexts,
	/** V: React `button.preview-join-button` (disabled until a name is typed), classic `#joinBtn`. */
	joinButton: ["button.preview-join-button", "#joinBtn"],
	/** V waits this long for Join to lose `.disabled` after the name is typed. */
	joinEnableMs: 8_000,
	/** V join.ts: the bot re-opens the page this often while Zoom says the host has not started. */
	hostRecheckMs: 15_000,
	/** Notices that sit over the page (V dismissZoomPopups); never a bare page-wide "OK", which end screens use. */
	popups: {
		selectors: [] as string[],
		texts: { en: ["Got it"], de: ["Verstanden"], fr: ["J'ai compris"], es: ["Entendido"], pt: ["Entendi"] } satisfies UiTexts,
		// An "OK" only inside the notices V names: AI Companion (.zm-modal), feature tips, the mic-muted advisory.
		scoped: [
			{ candidates: ".settings-feature-tips button, .relative-tooltip button, .ReactModal__Content button", texts: OK },
			{ candidates: ".zm-modal:not(:has(.zm-modal-body-title)) button", texts: OK },
		],
	},
	subtitles: ["#live-transcription-subtitle", ".live-transcription-subtitle__box"],
	/** A: `div[aria-label='More meeting control ']` (trailing space); V also `button[aria-label="More"]`. Others (uncorroborated). */
	moreControls: [
		"div[aria-label='More meeting control ']",
		"button[aria-label='More meeting control ']",
		'[aria-label^="More meeting control" i]',
		'button[aria-label="More"]',
	],
	moreLabels: {
		en: ["More meeting control", "More"],
		de: ["Weitere Meeting-Steuerelemente", "Mehr"],
		fr: ["Plus de contrôles de réunion", "Plus"],
		es: ["Más controles de la reunión", "Más"],
		pt: ["Mais controles da reunião", "Mais"],
	} satisfies UiTexts,
	/** A: `a[aria-label='Captions']`; missing when the host disabled captions. Others (uncorroborated). */
	captionsMenu: ["a[aria-label='Captions']"],
	captionsLabels: { en: ["Captions"], de: ["Untertitel"], fr: ["Sous-titres"], es: ["Subtítulos"], pt: ["Legendas"] } satisfies UiTexts,
	/** A: `a[aria-label='Your caption settings grouping Show Captions']`, then the item's text. */
	showCaptions: ["a[aria-label='Your caption settings grouping Show Captions']"],
	showCaptionsLabels: {
		en: ["Show Captions"],
		de: ["Untertitel anzeigen"],
		fr: ["Afficher les sous-titres"],
		es: ["Mostrar subtítulos"],
		pt: ["Mostrar legendas"],
	} satisfies UiTexts,
	/**
	 * A: the caption-language modal's `zm-btn--primary` "Save", then the transcription notice's "OK";
	 * never in a modal with an outcome title (V: the end and removal modals' `.zm-modal-body-title`).
	 */
	/** A (zoom_web_ui_methods.py): the speaking language's field in the caption-language modal. */
	captionLanguageInput: ["input.transcription-language__input"],
	captionModalButtons: ".zm-modal:not(:has(.zm-modal-body-title)) button.zm-btn",
	captionSaveLabels: { en: ["Save"], de: ["Speichern"], fr: ["Enregistrer"], es: ["Guardar"], pt: ["Salvar"] } satisfies UiTexts,
	captionOkLabels: OK,
	/**
	 * Older V prepare.ts (live 2026-08-24): the web client opens in Gallery View, where the
	 * active-speaker frames are not drawn; View → Speaker View fills them. The option carries
	 * `svg.SvgSpeakerView`, safe page-wide; the text is tried only inside the View menu.
	 */
	viewButton: ['button[aria-label="View"]', "button.full-screen-widget__button"],
	viewLabels: { en: ["View"], de: ["Ansicht"], fr: ["Affichage"], es: ["Vista"], pt: ["Visualização"] } satisfies UiTexts,
	speakerViewIcon: "svg.SvgSpeakerView",
	viewMenu: '[role="menu"], [class*="view-menu" i], .dropdown-menu',
	speakerViewLabels: {
		en: ["Speaker View", "Speaker Mode"],
		de: ["Sprecheransicht"],
		fr: ["Vue Intervenant"],
		es: ["Vista del hablante"],
		pt: ["Visualização do orador"],
	} satisfies UiTexts,
	/** Drawn only in Speaker View (older V). */
	speakerViewShown: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame"],
	participantsButton: ['button[aria-label*="participants list"]'],
	participantsPane: [".participants-ul", "#participants-ul"],
	chatButton: ['button[aria-label*="chat panel"]'],
	/** Older V: the TipTap editor, and its send button. */
	chatInput: ['.chat-rtf-box__editor-outer [contenteditable="true"]', ".tiptap.ProseMirror"],
	chatSend: ['button[aria-label="send"]', 'button[class*="chat-rtf-box__send"]'],
	/**
	 * The footer's mic and camera buttons by class (older V); their state is read from the
	 * aria-label, else the text: the label may say only "audio" (older V live note, 2026-09-01;
	 * the web SDK's aria-label with audio not joined).
	 */
	footerAudio: ["button.join-audio-container__btn"],
	footerVideo: ["button.send-video-container__btn"],
	/** V leave.ts, in order; the waiting room's own button is A's `button.leave-btn`. */
	leave: [
		'[footer-section="right"] button[aria-label="Leave"]',
		'button[aria-label="Leave"]',
		'button[aria-label*="Leave"]',
		"button.footer__leave-btn",
		"button.leave-btn",
	],
	leaveLabels: { en: ["Leave"], de: ["Verlassen"], fr: ["Quitter"], es: ["Salir"], pt: ["Sair"] } satisfies UiTexts,
	/** V: empty aria-label, and Enter cancels: it must be clicked. */
	leaveConfirm: [
		"button.leave-meeting-options__btn--danger",
		"button.leave-meeting-options__btn",
		'button.zm-btn--danger[aria-label*="Leave"]',
	],
	probe: {
		states: [
			// Outcome modals, read only inside them (V reads `.zm-modal-body-title` first). The same
			// "removed" screen is a removal and a waiting-room denial; the session tells them apart.
			{
				state: "removed",
				within: [".zm-modal-body-title", ".zm-modal-body", ".zm-modal-legacy-body", "[role=alertdialog]"],
				texts: {
					en: ["You have been removed", "removed from the meeting"],
					de: ["aus dem Meeting entfernt"], // (uncorroborated)
					fr: ["retiré de la réunion"], // (uncorroborated)
					es: ["eliminado de la reunión"], // (uncorroborated)
					pt: ["removido da reunião"], // (uncorroborated)
				},
			},
			{
				state: "ended",
				within: [".zm-modal-body-title", ".zm-modal-body", ".zm-modal-legacy-body", "[role=alertdialog]"],
				texts: {
					en: [
						"This meeting has been ended by host",
						"ended by the host",
						"host ended the meeting",
						"host has ended this meeting",
						"meeting has ended",
					],
					de: ["vom Host beendet"], // (uncorroborated)
					fr: ["terminée par l'hôte"], // (uncorroborated)
					es: ["anfitrión ha finalizado"], // (uncorroborated)
					pt: ["encerrada pelo anfitrião"], // (uncorroborated)
				},
			},
			// Redirects once in the call mean the meeting is over for the bot (V removal.ts): a sign-in or
			// post-meeting page at once (never part of the audio set-up), the join page or an error page
			// again only after V's 20 s audio-init grace (V lists /wc/<id>/join among those redirects).
			// Post-meeting pages: zoom.us/postattendee, /wc/leave, /meeting/ended (third-party bots and extensions).
			{
				state: "ended",
				urls: ["zoom.us/signin", "zoom.us/login", "zoom.us/wc/leave", "zoom.us/postattendee", "zoom.us/meeting/ended"],
				admittedForMs: 0,
			},
			{ state: "ended", titles: { en: ["Error - Zoom"] }, admittedForMs: 20_000 },
			{ state: "ended", selectors: ["#input-for-name", "#inputname"], admittedForMs: 20_000 },
			{
				state: "not_found",
				texts: {
					en: ["Passcode wrong", "Invalid meeting ID"], // A; zoomrec (desktop)
					de: ["Kenncode falsch"], // "Kenncode" is Zoom's German word (support pages); the phrase (uncorroborated)
					fr: ["Code secret incorrect"], // "code secret": Zoom's French word; (uncorroborated)
					es: ["Código de acceso incorrecto"], // (uncorroborated)
					pt: ["Senha incorreta"], // (uncorroborated)
				},
			},
			// V zoomBotBlockTexts (the RTMS wall), A's "check captcha" and its browser-access notice; the
			// classic client's visible reCAPTCHA over #joinBtn (V holds it for a human), not the v3 badge.
			{
				state: "bot_wall",
				texts: {
					en: [
						"automated bots aren't allowed",
						"must use Zoom RTMS",
						"detected you may be a bot",
						"check captcha",
						"organization has disabled access to Zoom from the browser",
					],
					de: ["möglicherweise ein Bot"], // (uncorroborated)
					fr: ["êtes peut-être un bot"], // (uncorroborated)
					es: ["puede que sea un bot"], // (uncorroborated)
					pt: ["pode ser um bot"], // (uncorroborated)
				},
				selectors: ['iframe[src*="recaptcha"]:not(.grecaptcha-badge iframe)'],
			},
			{
				state: "sign_in_required",
				urls: ["zoom.us/signin"],
				texts: {
					en: [
						"Only authenticated users can join",
						"sign in to join",
						"this meeting requires authentication",
						"host requires authentication",
						"for authorized attendees only",
					],
					de: ["Nur authentifizierte Benutzer"], // (uncorroborated)
					fr: ["Seuls les utilisateurs connectés peuvent participer"], // Zoom's French blog
					es: ["Solo los usuarios autenticados"], // (uncorroborated)
					pt: ["Somente usuários autenticados"], // (uncorroborated)
				},
			},
			{
				state: "left",
				texts: {
					en: ["You have left the meeting"],
					de: ["Sie haben das Meeting verlassen"], // (uncorroborated)
					fr: ["Vous avez quitté la réunion"], // (uncorroborated)
					es: ["Ha salido de la reunión"], // (uncorroborated)
					pt: ["Você saiu da reunião"], // (uncorroborated)
				},
			},
			// The host has not started the meeting (V): "Error - Zoom", "This meeting link is invalid (3,001)"
			// on every load of the join link; A: "…host to start the meeting" after asking to join.
			{
				state: "waiting_for_host",
				titles: { en: ["Error - Zoom"], de: ["Fehler - Zoom"], fr: ["Erreur - Zoom"], pt: ["Erro - Zoom"] }, // (uncorroborated) but en
				texts: {
					en: ["This meeting link is invalid", "(3,001)", "host to start this meeting", "host to start the meeting"],
					de: ["Dieser Meeting-Link ist ungültig", "wartet auf die Teilnahme des Hosts"], // the second: Zoom's German help
					fr: ["Ce lien de réunion n'est pas valide", "L'hôte n'a pas encore rejoint la réunion"], // the second: Zoom's French blog
					es: ["Este enlace de reunión no es válido", "que el anfitrión inicie"], // (uncorroborated)
					pt: ["Este link de reunião é inválido", "o anfitrião iniciar"], // (uncorroborated)
				},
			},
			// V zoomWaitingRoomTexts, without the bare "Please wait" (a loading screen says it too).
			{
				state: "lobby",
				texts: {
					en: ["Please wait, the meeting host will let you in soon", "Host has joined. We've let them know you're here", "waiting room"],
					de: ["Warteraum", "der Meeting-Host lässt Sie"], // "Warteraum": Zoom's German help; the rest (uncorroborated)
					fr: ["salle d'attente", "l'hôte de la réunion va bientôt vous"], // "salle d'attente": Zoom's French help
					es: ["sala de espera", "el anfitrión de la reunión le permitirá"], // (uncorroborated)
					pt: ["sala de espera", "o anfitrião da reunião permitirá"], // (uncorroborated)
				},
			},
			// V admission.ts: the Leave button (no footer ancestor needed), older V's footer audio button.
			{ state: "in_call", selectors: ['button[aria-label="Leave"]', "button.join-audio-container__btn", "#wc-footer button"] },
			{ state: "prejoin", selectors: ["#input-for-name", "#inputname"] },
			// The footer hides itself: V falls back to a visible `.meeting-app` once the waiting room and the
			// pre-join are ruled out (they come first).
			{ state: "in_call", selectors: [".meeting-app"] },
			// V removal.ts: a page off Zoom's domains once in the call is the end (a company site after the
			// meeting). Last, so a client embedded on a portal's host is in the call while it shows one.
			{ state: "ended", offHosts: ["zoom.us", "zoom.com", "zoomgov.com"], admittedForMs: 20_000 },
		],
		participantText: [
			".live-transcription-subtitle__box",
			"#live-transcription-subtitle",
			".new-chat-message__container",
			"#chat-list-content",
			".chat-container",
			'[aria-label="Chat Message List"]',
			".participants-ul",
			"#participants-ul",
			".participants-li",
			".video-avatar__avatar-footer",
			".video-avatar__avatar",
		],
		captions: {
			regions: ["#live-transcription-subtitle", ".live-transcription-subtitle__box"],
			layouts: [
				{
					kind: "entries",
					entry: ".live-transcription-subtitle__item",
					speaker: null,
					text: [".live-transcription-subtitle__item"],
					reusedEntry: true,
				},
			],
		},
		// V zoom-speakers.ts: the active-speaker frame, then the speaker bar's `--active` frame; name in the avatar footer.
		speakers: {
			tiles: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame"],
			speaking: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame--active"],
			name: [{ selector: ".video-avatar__avatar-footer > span" }, { selector: ".video-avatar__avatar-footer" }],
		},
		// Rows need not be direct children of the list (a virtualised list wraps them); third-party: `.participants-li`.
		participants: {
			items: [".participants-li", ".participants-item-position", ".participants-ul > li"],
			name: [{ selector: ".participants-item__display-name" }],
			self: [".participants-item__name-label"],
			visibleOnly: false,
		},
		chat: {
			messages: [".new-chat-message__container", '[id^="chat-message-"]'],
			text: [".new-chat-message__text-box", ".chat-rtf-box__display", '[class*="chat-message-text"]'],
			sender: [{ selector: ".chat-item__sender" }, { selector: ".chat-message-text__user-name" }],
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
