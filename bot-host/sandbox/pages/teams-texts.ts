/**
 * What the sandbox Teams page says, per UI language, as the maintained peers quote the real page:
 * V = Vexa-ai/vexa (core/meetings/modules/join/src/msteams/, teams-capture/src/), A =
 * attendee-labs/attendee (bots/teams_bot_adapter/teams_ui_methods.py, teams_chromedriver_payload.js),
 * S = screenappai/meeting-bot (src/bots/MicrosoftTeamsBot.ts), B = Meeting-BaaS/meet-teams-bot
 * (src/meeting/teams.ts). "idx": found only in other public Teams scrapers of the code index (a fork
 * of S with pt/es/fr/de selectors, German Teams bots). "(uncorroborated)": found nowhere; the
 * driver's texts (src/platforms/teams/texts.ts) carry the same mark.
 */
import type { UiLanguage } from "../../../src/platforms/page-facts.ts";

export interface TeamsPageTexts {
	launcherTitle: string;
	/** The launcher's button: its text and aria-label (S: `button[aria-label="Join meeting from this browser"]`). */
	continueInBrowser: string;
	continueInBrowserLabel: string;
	openApp: string;
	namePlaceholder: string;
	camera: string;
	microphone: string;
	computerAudio: string;
	joinNow: string;
	cancel: string;
	avPrompt: string;
	continueWithoutMedia: string;
	cameraOffTooltip: string;
	/** Lobby: A's text today, B's (2025) on the older page. */
	lobby: { newer: string; older: string };
	denied: string;
	removed: { newer: string; older: string };
	ended: string;
	left: string;
	notFound: string;
	couldNotConnect: string;
	rejoin: string;
	dismiss: string;
	encryption: string;
	orgSignIn: string;
	more: string;
	/** The guest's More-menu item: V's "Captions" today, "Turn on live captions" on the older page. */
	captions: { newer: string; older: string; off: string };
	languageAndSpeech: string;
	showLiveCaptions: string;
	people: string;
	chat: string;
	typeAMessage: string;
	leave: string;
}

export const TEAMS_PAGE_TEXTS: Record<UiLanguage, TeamsPageTexts> = {
	en: {
		launcherTitle: "How do you want to join your Teams meeting?",
		continueInBrowser: "Continue on this browser", // V, S, B
		continueInBrowserLabel: "Join meeting from this browser", // S
		openApp: "Join on the Teams app",
		namePlaceholder: "Type your name", // B
		camera: "Camera",
		microphone: "Microphone",
		computerAudio: "Computer audio", // V
		joinNow: "Join now", // V, S, B
		cancel: "Cancel",
		avPrompt: "Are you sure you don't want audio or video?", // V msteams/selectors.ts (the modal's wireframe)
		continueWithoutMedia: "Continue without audio or video", // V, B
		cameraOffTooltip: "Your camera is turned off", // B
		lobby: { newer: "Someone will let you in soon", older: "Someone in the meeting should let you in soon" }, // A; B
		denied: "Sorry, but you were denied access to the meeting.", // B, A
		removed: { newer: "You've been removed from this meeting", older: "Removed from the meeting" }, // A
		ended: "The meeting has ended", // S
		left: "You've left the meeting", // idx
		notFound: "Looks like the meeting URL is incorrect. Please check the URL and try again.", // A
		couldNotConnect: "Sorry, we couldn't connect you", // A ("we couldn't connect you")
		rejoin: "Rejoin", // idx
		dismiss: "Dismiss",
		encryption: "An encryption error occurred", // A
		orgSignIn: "Due to org policy, you need to sign in or use Teams on the web to join this meeting.", // A
		more: "More",
		captions: { newer: "Captions", older: "Turn on live captions", off: "Turn off live captions" }, // V
		languageAndSpeech: "Language and speech", // V
		showLiveCaptions: "Show live captions", // V
		people: "People",
		chat: "Chat",
		typeAMessage: "Type a message", // A
		leave: "Leave", // V
	},
	de: {
		launcherTitle: "Wie möchten Sie an Ihrer Teams-Besprechung teilnehmen?", // (uncorroborated)
		continueInBrowser: "In diesem Browser fortfahren", // idx
		continueInBrowserLabel: "In diesem Browser fortfahren", // idx
		openApp: "In der Teams-App teilnehmen", // (uncorroborated)
		namePlaceholder: "Geben Sie Ihren Namen ein", // (uncorroborated)
		camera: "Kamera",
		microphone: "Mikrofon",
		computerAudio: "Computeraudio", // (uncorroborated)
		joinNow: "Jetzt teilnehmen", // idx
		cancel: "Abbrechen",
		avPrompt: "Möchten Sie wirklich ohne Audio oder Video teilnehmen?", // (uncorroborated)
		continueWithoutMedia: "Ohne Audio oder Video fortfahren", // (uncorroborated)
		cameraOffTooltip: "Ihre Kamera ist ausgeschaltet", // (uncorroborated)
		lobby: {
			newer: "Jemand in der Besprechung sollte Sie bald hereinlassen", // (uncorroborated)
			older: "Jemand in der Besprechung sollte Sie bald hereinlassen", // (uncorroborated)
		},
		denied: "Ihnen wurde der Zugang zur Besprechung verweigert.", // (uncorroborated)
		removed: { newer: "Sie wurden entfernt", older: "Sie wurden entfernt" }, // S
		ended: "Die Besprechung wurde beendet", // idx; S "besprechung wurde beendet"
		left: "Sie haben die Besprechung verlassen", // idx
		notFound: "Die Besprechungs-URL scheint falsch zu sein. Überprüfen Sie die URL, und versuchen Sie es erneut.", // (uncorroborated)
		couldNotConnect: "Leider konnten wir Sie nicht verbinden", // (uncorroborated)
		rejoin: "Erneut beitreten", // idx
		dismiss: "Schließen",
		encryption: "Ein Verschlüsselungsfehler ist aufgetreten", // (uncorroborated)
		orgSignIn: "Melden Sie sich an, um an dieser Besprechung teilzunehmen.", // idx ("Melden Sie sich an, um")
		more: "Mehr",
		captions: { newer: "Live-Untertitel aktivieren", older: "Live-Untertitel aktivieren", off: "Live-Untertitel deaktivieren" }, // idx
		languageAndSpeech: "Sprache und Sprechen", // (uncorroborated)
		showLiveCaptions: "Live-Untertitel aktivieren", // idx
		people: "Personen",
		chat: "Chat",
		typeAMessage: "Nachricht eingeben", // (uncorroborated)
		leave: "Verlassen", // idx
	},
	fr: {
		launcherTitle: "Comment voulez-vous rejoindre votre réunion Teams ?", // (uncorroborated)
		continueInBrowser: "Continuer sur ce navigateur", // idx
		continueInBrowserLabel: "Rejoindre la réunion à partir de ce navigateur", // idx
		openApp: "Rejoindre dans l'application Teams", // (uncorroborated)
		namePlaceholder: "Tapez votre nom", // (uncorroborated)
		camera: "Caméra",
		microphone: "Micro",
		computerAudio: "Audio de l'ordinateur", // (uncorroborated)
		joinNow: "Rejoindre maintenant", // idx
		cancel: "Annuler",
		avPrompt: "Voulez-vous vraiment continuer sans audio ni vidéo ?", // (uncorroborated)
		continueWithoutMedia: "Continuer sans audio ni vidéo", // (uncorroborated)
		cameraOffTooltip: "Votre caméra est désactivée", // (uncorroborated)
		lobby: {
			newer: "Une personne de la réunion devrait bientôt vous laisser entrer", // (uncorroborated)
			older: "Une personne de la réunion devrait bientôt vous laisser entrer", // (uncorroborated)
		},
		denied: "Désolé, mais l'accès à la réunion vous a été refusé.", // (uncorroborated)
		removed: { newer: "Vous avez été supprimé de cette réunion", older: "Vous avez été supprimé de cette réunion" }, // (uncorroborated)
		ended: "La réunion est terminée", // idx
		left: "Vous avez quitté la réunion", // idx
		notFound: "L'URL de la réunion semble incorrecte. Vérifiez l'URL et réessayez.", // (uncorroborated)
		couldNotConnect: "Désolé, nous n'avons pas pu vous connecter", // (uncorroborated)
		rejoin: "Rejoindre à nouveau",
		dismiss: "Fermer",
		encryption: "Une erreur de chiffrement s'est produite", // (uncorroborated)
		orgSignIn: "Connectez-vous pour rejoindre cette réunion.", // (uncorroborated)
		more: "Plus",
		captions: { newer: "Sous-titres", older: "Activer les sous-titres en direct", off: "Désactiver les sous-titres en direct" }, // (uncorroborated)
		languageAndSpeech: "Langue et voix", // (uncorroborated)
		showLiveCaptions: "Activer les sous-titres en direct", // (uncorroborated)
		people: "Participants",
		chat: "Conversation",
		typeAMessage: "Tapez un message", // (uncorroborated)
		leave: "Quitter", // idx
	},
	es: {
		launcherTitle: "¿Cómo quiere unirse a su reunión de Teams?", // (uncorroborated)
		continueInBrowser: "Continuar en este explorador", // idx
		continueInBrowserLabel: "Continuar en este explorador", // idx
		openApp: "Unirse en la aplicación de Teams", // (uncorroborated)
		namePlaceholder: "Escriba su nombre", // (uncorroborated)
		camera: "Cámara",
		microphone: "Micrófono",
		computerAudio: "Audio del equipo", // (uncorroborated)
		joinNow: "Unirse ahora", // idx
		cancel: "Cancelar",
		avPrompt: "¿Seguro que no quiere audio ni vídeo?", // (uncorroborated)
		continueWithoutMedia: "Continuar sin audio ni vídeo", // (uncorroborated)
		cameraOffTooltip: "La cámara está desactivada", // (uncorroborated)
		lobby: {
			newer: "Alguien de la reunión debería dejarle entrar pronto", // (uncorroborated)
			older: "Alguien de la reunión debería dejarle entrar pronto", // (uncorroborated)
		},
		denied: "Lo sentimos, pero se le ha denegado el acceso a la reunión.", // (uncorroborated)
		removed: { newer: "Se le ha quitado de esta reunión", older: "Se le ha quitado de esta reunión" }, // (uncorroborated)
		ended: "La reunión ha finalizado", // idx
		left: "Has salido de la reunión", // (uncorroborated)
		notFound: "Parece que la dirección URL de la reunión no es correcta. Compruébela y vuelva a intentarlo.", // (uncorroborated)
		couldNotConnect: "Lo sentimos, no hemos podido conectarle", // (uncorroborated)
		rejoin: "Volver a unirse",
		dismiss: "Descartar",
		encryption: "Se produjo un error de cifrado", // (uncorroborated)
		orgSignIn: "Inicie sesión para unirse a esta reunión.", // (uncorroborated)
		more: "Más",
		captions: { newer: "Subtítulos", older: "Activar subtítulos en directo", off: "Desactivar subtítulos en directo" }, // (uncorroborated)
		languageAndSpeech: "Idioma y voz", // (uncorroborated)
		showLiveCaptions: "Activar subtítulos en directo", // (uncorroborated)
		people: "Personas",
		chat: "Chat",
		typeAMessage: "Escribe un mensaje", // (uncorroborated)
		leave: "Salir", // idx
	},
	pt: {
		launcherTitle: "Como você deseja ingressar na reunião do Teams?", // (uncorroborated)
		continueInBrowser: "Continuar neste navegador", // idx
		continueInBrowserLabel: "Continuar neste navegador", // idx
		openApp: "Ingressar no aplicativo Teams", // (uncorroborated)
		namePlaceholder: "Digite seu nome", // idx
		camera: "Câmera",
		microphone: "Microfone",
		computerAudio: "Áudio do computador", // (uncorroborated)
		joinNow: "Ingressar agora", // idx
		cancel: "Cancelar",
		avPrompt: "Tem certeza de que não deseja áudio ou vídeo?", // (uncorroborated)
		continueWithoutMedia: "Continuar sem áudio ou vídeo", // idx
		cameraOffTooltip: "Sua câmera está desligada", // (uncorroborated)
		lobby: {
			newer: "Aguarde até que o organizador permita que você entre", // idx
			older: "Alguém na reunião permitirá que você entre em breve", // idx ("permitirá que você entre")
		},
		denied: "Desculpe, mas o seu acesso à reunião foi negado.", // (uncorroborated)
		removed: { newer: "Você foi removido desta reunião", older: "Você foi removido desta reunião" }, // idx ("você foi removido")
		ended: "A reunião foi encerrada", // (uncorroborated)
		left: "Você saiu da reunião", // idx
		notFound: "Parece que a URL da reunião está incorreta. Verifique a URL e tente novamente.", // (uncorroborated)
		couldNotConnect: "Desculpe, não foi possível conectar você", // (uncorroborated)
		rejoin: "Reingressar na chamada", // idx
		dismiss: "Ignorar",
		encryption: "Ocorreu um erro de criptografia", // (uncorroborated)
		orgSignIn: "Entre para ingressar nesta reunião.", // (uncorroborated)
		more: "Mais",
		captions: { newer: "Legendas", older: "Ativar legendas ao vivo", off: "Desativar legendas ao vivo" }, // (uncorroborated)
		languageAndSpeech: "Idioma e fala", // (uncorroborated)
		showLiveCaptions: "Ativar legendas ao vivo", // (uncorroborated)
		people: "Pessoas",
		chat: "Chat",
		typeAMessage: "Digite uma mensagem", // (uncorroborated)
		leave: "Sair", // idx
	},
};
