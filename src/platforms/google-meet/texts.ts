/**
 * Google Meet's UI texts in the languages the bot knows, each group with where it was read:
 * A = attendee-labs/attendee `bots/google_meet_bot_adapter/google_meet_ui_methods.py` and
 * `google_meet_chromedriver_payload.js`; V = Vexa-ai/vexa `core/meetings/modules/join/src/googlemeet/`
 * (`selectors.ts`, `admission.ts`) and `gmeet-capture/src/gmeet-speakers.ts`; S = screenappai/meeting-bot
 * `meeting-bot/src/bots/GoogleMeetBot.ts` and `meeting-bot/src/constants/index.ts`; B = Meeting-BaaS/meet-teams-bot `meet-teams-bot/src/meeting/meet.ts`.
 * "third-party" names a scraper or extension found in the code index that acts on live Meet pages.
 * A text marked (uncorroborated) was found nowhere: it is the platform's likely wording, kept so the
 * language is covered, and the sandbox marks the same string the same way.
 */
import type { UiTexts } from "../page-facts.ts";

export const MEET_TEXTS = {
	/** The guest name field's label. en: A; the rest (uncorroborated). */
	yourName: { en: ["Your name"], de: ["Ihr Name"], fr: ["Votre nom"], es: ["Tu nombre"], pt: ["Seu nome"] },
	/**
	 * The join button's own label. en: A (six) and V ("Switch here"); de: S; fr: a third-party
	 * French Meet bot (Electron, "Demander à participer", "Participer"); es: "Unirse ahora" a
	 * third-party Spanish Meet bot, "Solicitar unirse" (uncorroborated); pt: a third-party
	 * Portuguese Meet bot and extension ("Pedir para participar", "Participar agora").
	 */
	join: {
		en: ["Ask to join", "Ask to join anyway", "Join now", "Join the call now", "Join anyway", "Join here too", "Switch here"],
		de: ["Teilnahme erbitten", "Jetzt teilnehmen", "Trotzdem teilnehmen"],
		fr: ["Demander à participer", "Participer"],
		es: ["Solicitar unirse", "Unirse ahora"],
		pt: ["Pedir para participar", "Participar agora"],
	},
	/**
	 * The microphone toggle's label while the microphone is on. en: A; de: a third-party German
	 * Meet bot ("Mikrofon deaktivieren"); es: a third-party Spanish Meet bot; fr, pt (uncorroborated).
	 */
	micIsOn: {
		en: ["Turn off microphone"],
		de: ["Mikrofon deaktivieren"],
		fr: ["Désactiver le micro"],
		es: ["Desactivar micrófono"],
		pt: ["Desativar microfone"],
	},
	/** ...while it is off. en: A; es: the same Spanish bot; de, fr, pt (uncorroborated). */
	micIsOff: {
		en: ["Turn on microphone"],
		de: ["Mikrofon aktivieren"],
		fr: ["Activer le micro"],
		es: ["Activar micrófono"],
		pt: ["Ativar microfone"],
	},
	/** The camera toggle while the camera is on. en: A; de, es: as for the microphone; fr, pt (uncorroborated). */
	cameraIsOn: {
		en: ["Turn off camera"],
		de: ["Kamera deaktivieren"],
		fr: ["Désactiver la caméra"],
		es: ["Desactivar cámara"],
		pt: ["Desativar câmera"],
	},
	/** ...while it is off. en: A; es: the Spanish bot; de, fr, pt (uncorroborated). */
	cameraIsOff: {
		en: ["Turn on camera"],
		de: ["Kamera aktivieren"],
		fr: ["Activer la caméra"],
		es: ["Activar cámara"],
		pt: ["Ativar câmera"],
	},
	/**
	 * The captions button while captions are off, then on. en: A; de, fr, es: a third-party Meet
	 * transcript extension's localized XPaths; pt (uncorroborated).
	 */
	turnOnCaptions: {
		en: ["Turn on captions"],
		de: ["Untertitel aktivieren"],
		fr: ["Activer les sous-titres"],
		es: ["Activar subtítulos"],
		pt: ["Ativar legendas"],
	},
	turnOffCaptions: {
		en: ["Turn off captions"],
		de: ["Untertitel deaktivieren"],
		fr: ["Désactiver les sous-titres"],
		es: ["Desactivar subtítulos"],
		pt: ["Desativar legendas"],
	},
	/** The captions region's aria-label. en: third-party caption scrapers (sanand0/tools gmeetcaptions); pt: a third-party scraper ("Legendas"); de, fr, es (uncorroborated). */
	captionsRegion: { en: ["Captions"], de: ["Untertitel"], fr: ["Sous-titres"], es: ["Subtítulos"], pt: ["Legendas"] },
	/** In-call share button: "Share screen" (V: Meet's newer label) and "Present now" (V, older); de, fr, es, pt (uncorroborated). */
	share: {
		en: ["Share screen", "Present now"],
		de: ["Bildschirm teilen"],
		fr: ["Partager l'écran"],
		es: ["Compartir pantalla"],
		pt: ["Compartilhar tela"],
	},
	/** en: A; de: S; fr: the French Meet bot; es: the Spanish Meet bot; pt: a third-party Portuguese extension. */
	leaveCall: {
		en: ["Leave call"],
		de: ["Anruf verlassen"],
		fr: ["Quitter l'appel"],
		es: ["Salir de la llamada"],
		pt: ["Sair da chamada"],
	},
	/** A host's leave confirmation. en: V; the rest (uncorroborated). */
	leaveConfirm: {
		en: ["Just leave the meeting", "Just leave the call"],
		de: ["Besprechung einfach verlassen"],
		fr: ["Quitter simplement la réunion"],
		es: ["Solo salir de la reunión"],
		pt: ["Apenas sair da reunião"],
	},
	/** en: A; de, fr, es, pt: the Meet transcript extension's localized XPaths. */
	chatWithEveryone: {
		en: ["Chat with everyone"],
		de: ["Mit allen chatten"],
		fr: ["Discuter avec tous les participants"],
		es: ["Chatear con todos"],
		pt: ["Conversar com todos"],
	},
	/** The chat textarea. en: A ("Send a message"), B ("Send a message to everyone", and the placeholder); the rest (uncorroborated). */
	sendMessage: {
		en: ["Send a message", "Send a message to everyone"],
		de: ["Nachricht senden"],
		fr: ["Envoyer un message"],
		es: ["Enviar un mensaje"],
		pt: ["Enviar uma mensagem"],
	},
	/** The caption language path: en: A (`select_language`); the rest (uncorroborated). */
	moreOptions: { en: ["More options"], de: ["Weitere Optionen"], fr: ["Plus d'options"], es: ["Más opciones"], pt: ["Mais opções"] },
	settings: { en: ["Settings"], de: ["Einstellungen"], fr: ["Paramètres"], es: ["Configuración"], pt: ["Configurações"] },
	closeDialog: {
		en: ["Close dialog", "Close dialogue"],
		de: ["Dialogfeld schließen"],
		fr: ["Fermer la boîte de dialogue"],
		es: ["Cerrar diálogo"],
		pt: ["Fechar caixa de diálogo"],
	},
	/** The self-preview's effects button, which carries `data-participant-id`. en: V (`admission.ts`); the rest (uncorroborated). */
	effects: {
		en: ["Backgrounds and effects"],
		de: ["Hintergründe und Effekte"],
		fr: ["Arrière-plans et effets"],
		es: ["Fondos y efectos"],
		pt: ["Planos de fundo e efeitos"],
	},
	/**
	 * Waiting to be let in. en: V (`googleWaitingRoomIndicators`) and A ("Waiting for the host to
	 * join", before the host starts the meeting: a lobby here too); de: S (a prefix); es: a
	 * third-party Spanish Meet bot and its constants; fr: the French Meet bot's lobby patterns
	 * ("Demande de participation", "Vous rejoindrez l'appel"); pt (uncorroborated).
	 */
	lobby: {
		en: [
			"Asking to be let in",
			"You'll join the call when someone lets you in",
			"Please wait until a meeting host brings you into the call",
			"Waiting for the host to let you in",
			"You're in the waiting room",
			"Waiting for the host to join",
		],
		de: ["Bitte warten Sie, bis Sie vom Organisator", "Teilnahme wird angefragt"],
		fr: ["Demande de participation", "Vous rejoindrez l'appel"],
		es: ["Espera a que un organizador de la reunión te permita participar", "Solicitando unirte", "Pidiendo unirte"],
		pt: ["Pedindo para participar", "Você vai participar da chamada quando alguém permitir"],
	},
	/** en: A and S; es: the Spanish constants; fr: the French Meet bot's pattern; de, pt (uncorroborated). */
	denied: {
		en: ["Someone in the call denied your request to join"],
		de: ["hat Ihre Teilnahmeanfrage abgelehnt"],
		fr: ["a refusé votre demande"],
		es: ["Alguien de la llamada rechazó tu solicitud para unirte", "Alguien rechazó tu solicitud para unirte"],
		pt: ["recusou seu pedido para participar"],
	},
	/** en: A and S; de: S; es: the Spanish constants; fr, pt (uncorroborated). */
	unanswered: {
		en: ["No one responded to your request to join the call"],
		de: ["Niemand hat auf Ihre Teilnahmeanfrage geantwortet"],
		fr: ["Personne n'a répondu à votre demande de participation"],
		es: ["Nadie respondió a tu solicitud para unirte a la llamada"],
		pt: ["Ninguém respondeu ao seu pedido para participar"],
	},
	/** en: A (`.roSPhc`); fr: the French Meet bot ("vous avez été retiré"); de, es, pt (uncorroborated). */
	removed: {
		en: ["You've been removed from the meeting"],
		de: ["Sie wurden aus der Besprechung entfernt"],
		fr: ["Vous avez été retiré de la réunion"],
		es: ["Se te ha quitado de la reunión"],
		pt: ["Você foi removido da reunião"],
	},
	/** en: A (`.roSPhc`) and V; fr: the French Meet bot; de, es, pt (uncorroborated). */
	ended: {
		en: ["Your host ended the meeting for everyone", "Meeting ended", "Call ended"],
		de: ["Der Organisator hat die Besprechung für alle beendet", "Anruf beendet"],
		fr: ["L'appel est terminé", "La réunion est terminée"],
		es: ["El organizador finalizó la reunión para todos", "Llamada finalizada"],
		pt: ["O organizador encerrou a reunião para todos", "Chamada encerrada"],
	},
	/** en: A (a denial before admission) and V; fr: the French Meet bot ("vous avez quitté"); de, es, pt (uncorroborated). */
	left: {
		en: ["You left the meeting"],
		de: ["Sie haben die Besprechung verlassen"],
		fr: ["Vous avez quitté la réunion"],
		es: ["Saliste de la reunión"],
		pt: ["Você saiu da reunião"],
	},
	/** en: A (`check_if_meeting_is_found`, four texts); the rest (uncorroborated). */
	notFound: {
		en: [
			"Check your meeting code",
			"Invalid video call name",
			"Your meeting code has expired",
			"The meeting code you entered doesn't work",
		],
		de: ["Überprüfen Sie Ihren Meeting-Code"],
		fr: ["Vérifiez votre code de réunion"],
		es: ["Comprueba el código de la reunión"],
		pt: ["Verifique o código da reunião"],
	},
	/**
	 * Google refuses the browser (A: `look_for_blocked_element`). de: a third-party German Meet
	 * bot; es: the Spanish Meet bot; fr: the French Meet bot ("vous ne pouvez pas participer"); pt (uncorroborated).
	 */
	botWall: {
		en: ["You can't join this video call", "There is a problem connecting to this video call"],
		de: ["Sie können nicht an diesem Videoanruf teilnehmen"],
		fr: ["Vous ne pouvez pas participer à cet appel vidéo"],
		es: ["No puedes unirte a esta videollamada"],
		pt: ["Não é possível participar desta videochamada"],
	},
	/** The notices A accepts, only inside a modal dialog (`checkNeededInteractions`); de, fr, es, pt (uncorroborated). */
	notices: {
		en: [
			"This video call is being recorded",
			"This video call is being transcribed",
			"Others may see your video differently",
			"Gemini is taking notes",
		],
		de: ["Dieser Videoanruf wird aufgezeichnet"],
		fr: ["Cet appel vidéo est enregistré"],
		es: ["Se está grabando esta videollamada"],
		pt: ["Esta videochamada está sendo gravada"],
	},
	/** A notice's own button. en: A and S; fr: the French Meet bot ("J'ai compris"); de, es, pt (uncorroborated). */
	gotIt: { en: ["Got it"], de: ["Verstanden"], fr: ["J'ai compris"], es: ["Entendido"], pt: ["Entendi"] },
	/**
	 * Gemini's "take notes for me" prompt, a consent gate no bot may answer (V #429, `googleConsentPromptIndicators`).
	 * de, fr, es, pt (uncorroborated).
	 */
	notesConsent: {
		en: ["take notes for me"],
		de: ["Notizen für mich machen"],
		fr: ["Prendre des notes pour moi"],
		es: ["Tomar notas por mí"],
		pt: ["Fazer anotações para mim"],
	},
} satisfies Record<string, UiTexts>;
