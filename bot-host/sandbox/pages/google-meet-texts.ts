/**
 * What the sandbox Meet page says, per UI language, from the maintained bots and the Meet scrapers
 * in the code index, never from our driver. A = attendee-labs/attendee
 * `bots/google_meet_bot_adapter/google_meet_ui_methods.py` and `google_meet_chromedriver_payload.js`;
 * V = Vexa-ai/vexa `core/meetings/modules/join/src/googlemeet/selectors.ts`, `admission.ts`;
 * S = screenappai/meeting-bot `meeting-bot/src/bots/GoogleMeetBot.ts`, `meeting-bot/src/constants/index.ts`;
 * B = Meeting-BaaS/meet-teams-bot `meet-teams-bot/src/meeting/meet.ts`. "third-party": a bot or extension acting on
 * live Meet pages (a German and a Spanish Playwright bot, a French Electron bot, a Portuguese
 * extension, a localized transcript extension, sanand0/tools gmeetcaptions). A string found
 * nowhere is marked (uncorroborated); the driver marks it the same way.
 */
import type { UiLanguage } from "../../../src/platforms/page-facts.ts";

export interface MeetUi {
	readyToJoin: string;
	yourName: string;
	askToJoin: string;
	joinNow: string;
	turnOffMic: string;
	turnOnMic: string;
	turnOffCam: string;
	turnOnCam: string;
	effects: string;
	asking: string;
	askingDetail: string;
	returnHome: string;
	turnOnCaptions: string;
	turnOffCaptions: string;
	captions: string;
	shareScreen: string;
	presentNow: string;
	people: string;
	chatWithEveryone: string;
	sendMessage: string;
	leaveCall: string;
	moreOptions: string;
	settings: string;
	meetingLanguage: string;
	closeDialog: string;
	denied: string;
	removed: string;
	ended: string;
	left: string;
	notFound: string;
	cantJoin: string;
	recorded: string;
	leaveMeeting: string;
	notesConsent: string;
	notesConsentDetail: string;
	startNotes: string;
	noThanks: string;
}

const EN: MeetUi = {
	readyToJoin: "Ready to join?",
	yourName: "Your name", // A
	askToJoin: "Ask to join", // A, V, S
	joinNow: "Join now", // A, V, S
	turnOffMic: "Turn off microphone", // A, B
	turnOnMic: "Turn on microphone", // A
	turnOffCam: "Turn off camera", // A
	turnOnCam: "Turn on camera", // A
	effects: "Backgrounds and effects", // V admission.ts
	asking: "Asking to be let in…", // V
	askingDetail: "You’ll join the call when someone lets you in", // V (typographic apostrophe in live copy)
	returnHome: "Return to home screen", // V #471, B
	turnOnCaptions: "Turn on captions", // A
	turnOffCaptions: "Turn off captions", // A
	captions: "Captions", // sanand0/tools gmeetcaptions fixture
	shareScreen: "Share screen", // V (newer label)
	presentNow: "Present now", // V (older label)
	people: "People", // S, B
	chatWithEveryone: "Chat with everyone", // A, B
	sendMessage: "Send a message", // A
	leaveCall: "Leave call", // A
	moreOptions: "More options", // A
	settings: "Settings", // A
	meetingLanguage: "Meeting language", // A setClosedCaptionsLanguage
	closeDialog: "Close dialog", // A
	denied: "Someone in the call denied your request to join", // A, S
	removed: "You've been removed from the meeting", // A (.roSPhc)
	ended: "Your host ended the meeting for everyone", // A (.roSPhc)
	left: "You left the meeting", // A, V
	notFound: "Check your meeting code", // A
	cantJoin: "You can't join this video call", // A look_for_blocked_element
	recorded: "This video call is being recorded", // A checkNeededInteractions
	leaveMeeting: "Leave meeting", // (uncorroborated)
	notesConsent: "Take notes for me?", // V #429 "take notes for me"
	notesConsentDetail: "Gemini will take notes for me in this call, and everyone will be told.", // (uncorroborated)
	startNotes: "Start taking notes", // (uncorroborated)
	noThanks: "No thanks", // (uncorroborated)
};

/** Other languages: only what differs from English; unlisted keys show the English text. */
const OTHERS: Record<Exclude<UiLanguage, "en">, Partial<MeetUi>> = {
	de: {
		readyToJoin: "Bereit zum Beitreten?", // (uncorroborated)
		yourName: "Ihr Name", // (uncorroborated)
		askToJoin: "Teilnahme erbitten", // S
		joinNow: "Jetzt teilnehmen", // S
		turnOffMic: "Mikrofon deaktivieren", // third-party German bot
		turnOnMic: "Mikrofon aktivieren", // (uncorroborated)
		turnOffCam: "Kamera deaktivieren", // third-party German bot
		turnOnCam: "Kamera aktivieren", // (uncorroborated)
		effects: "Hintergründe und Effekte", // (uncorroborated)
		asking: "Teilnahme wird angefragt…", // (uncorroborated)
		askingDetail: "Bitte warten Sie, bis Sie vom Organisator in den Anruf geholt werden", // S (prefix); the rest (uncorroborated)
		returnHome: "Zurück zum Startbildschirm", // (uncorroborated)
		turnOnCaptions: "Untertitel aktivieren", // third-party transcript extension
		turnOffCaptions: "Untertitel deaktivieren", // third-party transcript extension
		captions: "Untertitel", // (uncorroborated)
		shareScreen: "Bildschirm teilen", // (uncorroborated)
		people: "Personen", // S
		chatWithEveryone: "Mit allen chatten", // third-party transcript extension
		sendMessage: "Nachricht senden", // (uncorroborated)
		leaveCall: "Anruf verlassen", // S
		moreOptions: "Weitere Optionen", // (uncorroborated)
		settings: "Einstellungen", // (uncorroborated)
		meetingLanguage: "Sprache der Besprechung", // (uncorroborated)
		closeDialog: "Dialogfeld schließen", // (uncorroborated)
		denied: "Jemand im Anruf hat Ihre Teilnahmeanfrage abgelehnt", // (uncorroborated)
		removed: "Sie wurden aus der Besprechung entfernt", // (uncorroborated)
		ended: "Der Organisator hat die Besprechung für alle beendet", // (uncorroborated)
		left: "Sie haben die Besprechung verlassen", // (uncorroborated)
		notFound: "Überprüfen Sie Ihren Meeting-Code", // (uncorroborated)
		cantJoin: "Sie können nicht an diesem Videoanruf teilnehmen", // third-party German bot
		recorded: "Dieser Videoanruf wird aufgezeichnet", // (uncorroborated)
	},
	fr: {
		readyToJoin: "Prêt à participer ?", // (uncorroborated)
		yourName: "Votre nom", // (uncorroborated)
		askToJoin: "Demander à participer", // third-party French bot
		joinNow: "Participer", // third-party French bot
		turnOffMic: "Désactiver le micro", // (uncorroborated)
		turnOnMic: "Activer le micro", // (uncorroborated)
		turnOffCam: "Désactiver la caméra", // (uncorroborated)
		turnOnCam: "Activer la caméra", // (uncorroborated)
		effects: "Arrière-plans et effets", // (uncorroborated)
		asking: "Demande de participation…", // third-party French bot (its lobby pattern)
		askingDetail: "Vous rejoindrez l'appel lorsque quelqu'un vous y autorisera", // third-party French bot ("vous rejoindrez"); the rest (uncorroborated)
		returnHome: "Revenir à l'écran d'accueil", // third-party French bot
		turnOnCaptions: "Activer les sous-titres", // third-party transcript extension
		turnOffCaptions: "Désactiver les sous-titres", // third-party transcript extension
		captions: "Sous-titres", // (uncorroborated)
		shareScreen: "Partager l'écran", // (uncorroborated)
		people: "Participants", // (uncorroborated)
		chatWithEveryone: "Discuter avec tous les participants", // third-party transcript extension
		sendMessage: "Envoyer un message", // (uncorroborated)
		leaveCall: "Quitter l'appel", // third-party French bot
		moreOptions: "Plus d'options", // (uncorroborated)
		settings: "Paramètres", // (uncorroborated)
		meetingLanguage: "Langue de la réunion", // (uncorroborated)
		closeDialog: "Fermer la boîte de dialogue", // (uncorroborated)
		denied: "Quelqu'un dans l'appel a refusé votre demande de participation", // third-party French bot ("a refusé votre demande")
		removed: "Vous avez été retiré de la réunion", // third-party French bot ("vous avez été retiré")
		ended: "L'appel est terminé", // third-party French bot
		left: "Vous avez quitté la réunion", // third-party French bot ("vous avez quitté")
		notFound: "Vérifiez votre code de réunion", // (uncorroborated)
		cantJoin: "Vous ne pouvez pas participer à cet appel vidéo", // third-party French bot ("vous ne pouvez pas participer")
		recorded: "Cet appel vidéo est enregistré", // (uncorroborated)
	},
	es: {
		readyToJoin: "¿Todo listo para unirte?", // (uncorroborated)
		yourName: "Tu nombre", // (uncorroborated)
		askToJoin: "Solicitar unirse", // (uncorroborated)
		joinNow: "Unirse ahora", // third-party Spanish bot
		turnOffMic: "Desactivar micrófono", // third-party Spanish bot
		turnOnMic: "Activar micrófono", // third-party Spanish bot
		turnOffCam: "Desactivar cámara", // third-party Spanish bot
		turnOnCam: "Activar cámara", // third-party Spanish bot
		effects: "Fondos y efectos", // (uncorroborated)
		asking: "Solicitando unirte…", // third-party Spanish bot
		askingDetail: "Espera a que un organizador de la reunión te permita participar", // third-party Spanish constants
		returnHome: "Volver a la pantalla principal", // (uncorroborated)
		turnOnCaptions: "Activar subtítulos", // third-party transcript extension
		turnOffCaptions: "Desactivar subtítulos", // third-party transcript extension
		captions: "Subtítulos", // (uncorroborated)
		shareScreen: "Compartir pantalla", // (uncorroborated)
		people: "Personas", // third-party Spanish bot
		chatWithEveryone: "Chatear con todos", // third-party transcript extension
		sendMessage: "Enviar un mensaje", // (uncorroborated)
		leaveCall: "Salir de la llamada", // third-party Spanish bot
		moreOptions: "Más opciones", // (uncorroborated)
		settings: "Configuración", // (uncorroborated)
		meetingLanguage: "Idioma de la reunión", // (uncorroborated)
		closeDialog: "Cerrar diálogo", // (uncorroborated)
		denied: "Alguien de la llamada rechazó tu solicitud para unirte", // third-party Spanish constants
		removed: "Se te ha quitado de la reunión", // (uncorroborated)
		ended: "El organizador finalizó la reunión para todos", // (uncorroborated)
		left: "Saliste de la reunión", // (uncorroborated)
		notFound: "Comprueba el código de la reunión", // (uncorroborated)
		cantJoin: "No puedes unirte a esta videollamada", // third-party Spanish bot
		recorded: "Se está grabando esta videollamada", // (uncorroborated)
	},
	pt: {
		readyToJoin: "Tudo pronto para participar?", // (uncorroborated)
		yourName: "Seu nome", // (uncorroborated)
		askToJoin: "Pedir para participar", // third-party Portuguese bot and extension
		joinNow: "Participar agora", // third-party Portuguese bot and extension
		turnOffMic: "Desativar microfone", // (uncorroborated)
		turnOnMic: "Ativar microfone", // (uncorroborated)
		turnOffCam: "Desativar câmera", // (uncorroborated)
		turnOnCam: "Ativar câmera", // (uncorroborated)
		effects: "Planos de fundo e efeitos", // (uncorroborated)
		asking: "Pedindo para participar…", // (uncorroborated)
		askingDetail: "Você vai participar da chamada quando alguém permitir", // (uncorroborated)
		returnHome: "Voltar para a tela inicial", // (uncorroborated)
		turnOnCaptions: "Ativar legendas", // (uncorroborated)
		turnOffCaptions: "Desativar legendas", // (uncorroborated)
		captions: "Legendas", // third-party Portuguese scraper
		shareScreen: "Compartilhar tela", // (uncorroborated)
		people: "Pessoas", // (uncorroborated)
		chatWithEveryone: "Conversar com todos", // third-party transcript extension
		sendMessage: "Enviar uma mensagem", // (uncorroborated)
		leaveCall: "Sair da chamada", // third-party Portuguese extension
		moreOptions: "Mais opções", // (uncorroborated)
		settings: "Configurações", // (uncorroborated)
		meetingLanguage: "Idioma da reunião", // (uncorroborated)
		closeDialog: "Fechar caixa de diálogo", // (uncorroborated)
		denied: "Alguém na chamada recusou seu pedido para participar", // (uncorroborated)
		removed: "Você foi removido da reunião", // (uncorroborated)
		ended: "O organizador encerrou a reunião para todos", // (uncorroborated)
		left: "Você saiu da reunião", // (uncorroborated)
		notFound: "Verifique o código da reunião", // (uncorroborated)
		cantJoin: "Não é possível participar desta videochamada", // (uncorroborated)
		recorded: "Esta videochamada está sendo gravada", // (uncorroborated)
	},
};

export function meetUi(language: UiLanguage): MeetUi {
	return language === "en" ? EN : { ...EN, ...OTHERS[language] };
}

/**
 * Screens the traps show, in English only: the peers document them in English (the lobby variants:
 * V `googleWaitingRoomIndicators` and A; the denial as "You left the meeting", the two not-found
 * texts and "There is a problem connecting…": A).
 */
export const MEET_TRAP_TEXTS = {
	hostBringsYouIn: "Please wait until a meeting host brings you into the call",
	waitingRoom: "You’re in the waiting room",
	waitingForHost: "Waiting for the host to join",
	codeExpired: "Your meeting code has expired",
	codeDoesntWork: "The meeting code you entered doesn’t work",
	problemConnecting: "There is a problem connecting to this video call",
};

/** Caption languages Meet offers as `li[data-value]`, a selection of A's enum (`bots/serializers.py`). */
export const MEET_CAPTION_LANGUAGES: [code: string, name: string][] = [
	["en-US", "English (United States)"],
	["en-GB", "English (UK)"],
	["de-DE", "German (Germany)"],
	["fr-FR", "French (France)"],
	["fr-CA", "French (Canada)"],
	["es-MX", "Spanish (Mexico)"],
	["es-ES", "Spanish (Spain)"],
	["pt-BR", "Portuguese (Brazil)"],
	["pt-PT", "Portuguese (Portugal)"],
	["it-IT", "Italian"],
	["nl-NL", "Dutch"],
	["ja-JP", "Japanese"],
	["cmn-Hans-CN", "Chinese, Mandarin (Simplified)"],
	["iw-IL", "Hebrew"],
];
