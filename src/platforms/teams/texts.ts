/**
 * Teams web's UI texts in the languages the bot knows, as the maintained peers match them:
 * V = Vexa-ai/vexa (core/meetings/modules/join/src/msteams/, teams-capture/src/), A =
 * attendee-labs/attendee (bots/teams_bot_adapter/), S = screenappai/meeting-bot
 * (src/bots/MicrosoftTeamsBot.ts), B = Meeting-BaaS/meet-teams-bot (src/meeting/teams.ts).
 * "idx" marks a string found only in other public Teams scrapers of the code index (a fork of S
 * with pt/es/fr/de selectors, German Teams bots); "(uncorroborated)" one found nowhere, kept the
 * same in the sandbox page so both sides name it.
 */
import type { UiTexts } from "../page-facts.ts";

export const TEAMS_TEXTS = {
	/** The launcher's "use the browser" choice (S: aria-labels and texts; V, B: "Continue on this browser"). */
	continueInBrowser: {
		en: [
			"Continue on this browser",
			"Join from browser",
			"Join on this browser",
			"Join meeting from this browser",
			"Continue in this browser",
		],
		de: ["In diesem Browser fortfahren", "Im Browser fortfahren"], // idx
		fr: ["Continuer sur ce navigateur", "Continuer dans ce navigateur", "Rejoindre la réunion à partir de ce navigateur"], // idx
		es: ["Continuar en este explorador", "Continuar en el explorador"], // idx
		pt: ["Continuar neste navegador", "Continuar no navegador"], // idx
	},
	/** The pre-join "Join now" (V, S, B by text; A by data-tid). */
	joinNow: {
		en: ["Join now"],
		de: ["Jetzt teilnehmen"], // idx
		fr: ["Rejoindre maintenant"], // idx
		es: ["Unirse ahora"], // idx
		pt: ["Ingressar agora", "Entrar agora"], // idx
	},
	/** The light flow's audio/video prompt (V msteams/selectors.ts, B). */
	continueWithoutMedia: {
		en: ["Continue without audio or video"],
		de: ["Ohne Audio oder Video fortfahren"], // (uncorroborated)
		fr: ["Continuer sans audio ni vidéo"], // (uncorroborated)
		es: ["Continuar sin audio ni vídeo"], // (uncorroborated)
		pt: ["Continuar sem áudio ou vídeo"], // idx
	},
	/** The lobby (V teamsWaitingRoomIndicators, A "Someone will let you in soon", B). */
	lobby: {
		en: [
			"Someone will let you in soon",
			"Someone will let you in shortly",
			"Someone in the meeting should let you in soon",
			"You're in the lobby",
			"Waiting for someone to let you in",
			"Please wait until someone admits you",
			"Wait for someone to admit you",
			"Waiting to be admitted",
			"Your request to join has been sent",
		],
		de: ["Jemand in der Besprechung sollte Sie bald hereinlassen"], // (uncorroborated)
		fr: ["Une personne de la réunion devrait bientôt vous laisser entrer"], // (uncorroborated)
		es: ["Alguien de la reunión debería dejarle entrar pronto"], // (uncorroborated)
		pt: ["permitirá que você entre", "Aguarde até que o organizador permita que você entre"], // idx
	},
	/** Denied, on the calling-retry screen A dismisses with `calling-retry-cancelbutton` (A, B, V). */
	denied: {
		en: ["but you were denied access to the meeting", "Your request to join was declined", "You were denied entry"],
		de: ["Ihnen wurde der Zugang zur Besprechung verweigert"], // (uncorroborated)
		fr: ["l'accès à la réunion vous a été refusé"], // (uncorroborated)
		es: ["se le ha denegado el acceso a la reunión"], // (uncorroborated)
		pt: ["o seu acesso à reunião foi negado"], // (uncorroborated)
	},
	/** Removed, in `#calling-retry-screen-title` (A; V adds "You have been…", "Removed from meeting"). */
	removed: {
		en: [
			"You've been removed from this meeting",
			"You have been removed from this meeting",
			"Removed from the meeting",
			"Removed from meeting",
		],
		de: ["Sie wurden entfernt", "Du wurdest entfernt"], // S
		fr: ["Vous avez été supprimé de cette réunion"], // (uncorroborated)
		es: ["Se le ha quitado de esta reunión"], // (uncorroborated)
		pt: ["Você foi removido"], // idx
	},
	/** The meeting ended (S's ended phrases, V "Meeting ended", "Call ended"). */
	ended: {
		en: ["The meeting has ended", "This meeting has ended", "Meeting has been ended", "Meeting ended", "Call ended"],
		de: ["Besprechung wurde beendet", "Anruf beendet"], // S
		fr: ["La réunion est terminée"], // idx
		es: ["La reunión ha finalizado"], // idx
		pt: ["A reunião foi encerrada"], // (uncorroborated)
	},
	/** The bot left (idx: "You've left the meeting", German bots; ours: "You left the meeting"). */
	left: {
		en: ["You've left the meeting", "You left the meeting"],
		de: ["Sie haben die Besprechung verlassen"], // idx
		fr: ["Vous avez quitté la réunion"], // idx
		es: ["Has salido de la reunión"], // (uncorroborated)
		pt: ["Você saiu da reunião"], // idx
	},
	/** A link to no meeting (A look_for_invalid_url_element; idx: the retry screen's description; V "Meeting not found"). */
	notFound: {
		en: ["Looks like the meeting URL is incorrect", "We couldn't find a meeting matching this ID and passcode", "Meeting not found"],
		de: ["Die Besprechungs-URL scheint falsch zu sein"], // (uncorroborated)
		fr: ["L'URL de la réunion semble incorrecte"], // (uncorroborated)
		es: ["Parece que la dirección URL de la reunión no es correcta"], // (uncorroborated)
		pt: ["Parece que a URL da reunião está incorreta"], // (uncorroborated)
	},
	/** Teams blocking the bot for now: A retries the join (look_for_we_could_not_connect_you_element). */
	couldNotConnect: {
		en: ["we couldn't connect you"],
		de: ["konnten wir Sie nicht verbinden"], // (uncorroborated)
		fr: ["nous n'avons pas pu vous connecter"], // (uncorroborated)
		es: ["no hemos podido conectarle"], // (uncorroborated)
		pt: ["não foi possível conectar você"], // (uncorroborated)
	},
	/** A's captcha text. */
	botWall: {
		en: ["Verify you're a real person"],
		de: ["Bestätigen Sie, dass Sie ein Mensch sind"], // (uncorroborated)
		fr: ["Vérifiez que vous êtes une personne réelle"], // (uncorroborated)
		es: ["Compruebe que es una persona real"], // (uncorroborated)
		pt: ["Verifique se você é uma pessoa real"], // (uncorroborated)
	},
	/** A's nine sign-in sentences (look_for_sign_in_required_element). */
	signIn: {
		en: [
			"We need to verify your info before you can join",
			"To join, sign in or use Teams on the web",
			"You need to be signed in to Teams to access this meeting",
			"If you're not signed in to a Teams (work or school) account, sign in and try joining again",
			"Sign in to Teams to join, or contact the meeting organizer",
			"To join this Teams meeting, you need to be signed in to an account",
			"To join this meeting, sign in again or select another account",
			"Due to org policy, you need to sign in or use Teams on the web to join this meeting",
			"External participants are not permitted to join before the event begins",
		],
		de: ["Melden Sie sich an, um"], // idx
		fr: ["Connectez-vous pour rejoindre cette réunion"], // (uncorroborated)
		es: ["Inicie sesión para unirse a esta reunión"], // (uncorroborated)
		pt: ["Entre para ingressar nesta reunião"], // (uncorroborated)
	},
	/** The guest's More-menu item (V enableTeamsLiveCaptions: "captions", "show/turn on live captions"). */
	captionsItem: {
		en: ["Captions", "Show live captions", "Turn on live captions"],
		de: ["Live-Untertitel aktivieren", "Untertitel"], // idx ("Live-Untertitel aktivieren"); "Untertitel" (uncorroborated)
		fr: ["Sous-titres", "Activer les sous-titres en direct"], // (uncorroborated)
		es: ["Subtítulos", "Activar subtítulos en directo"], // (uncorroborated)
		pt: ["Legendas", "Ativar legendas ao vivo"], // (uncorroborated)
	},
	/** The organiser's way to captions: More → "Language and speech" (V; A by id). */
	languageAndSpeech: {
		en: ["Language and speech"],
		de: ["Sprache und Sprechen"], // (uncorroborated)
		fr: ["Langue et voix"], // (uncorroborated)
		es: ["Idioma y voz"], // (uncorroborated)
		pt: ["Idioma e fala"], // (uncorroborated)
	},
	/** The chat box's label (A: aria-label or placeholder "Type a message"). */
	typeAMessage: {
		en: ["Type a message"],
		de: ["Nachricht eingeben"], // (uncorroborated)
		fr: ["Tapez un message"], // (uncorroborated)
		es: ["Escribe un mensaje"], // (uncorroborated)
		pt: ["Digite uma mensagem"], // (uncorroborated)
	},
} satisfies Record<string, UiTexts>;
