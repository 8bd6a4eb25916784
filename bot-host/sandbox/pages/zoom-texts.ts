/**
 * What the sandbox Zoom web client says, per UI language. English is what the maintained peers
 * quote from app.zoom.us: V = Vexa core/meetings/modules/join/src/zoom/selectors.ts and join.ts,
 * older V = Vexa services/vexa-bot/core/src/platforms/zoom/web/{selectors,prepare}.ts (live DOM
 * notes), A = Attendee bots/zoom_web_bot_adapter/zoom_web_ui_methods.py, SDK = the Zoom web SDK
 * 1.7 source as a third-party changelog quotes it (footer aria-labels). The other languages are
 * translations of those, marked (uncorroborated) where no Zoom page or peer shows them; the
 * driver's page facts carry the same mark.
 */
import type { UiLanguage } from "../../../src/platforms/page-facts.ts";

export interface ZoomTexts {
	/** Document title of the error page the join link shows before the host starts (V: "Error - Zoom"). */
	errorTitle: string;
	/** V: "This meeting link is invalid (3,001)". */
	invalidLink: string;
	yourName: string;
	passcode: string;
	/** A: "Passcode wrong". */
	passcodeWrong: string;
	join: string;
	/** V: preview aria-labels "Mute" / "Stop Video"; older V prepare.ts: "Unmute" when muted. */
	mute: string;
	unmute: string;
	stopVideo: string;
	startVideo: string;
	/** V join.ts: the "Use microphone and camera" prompt, "Allow", "Continue without microphone and camera". */
	permissionTitle: string;
	allow: string;
	continueWithout: string;
	/** V zoomWaitingRoomTexts. */
	waitingRoom: string;
	hostJoined: string;
	leave: string;
	leaveMeeting: string;
	/** A: `div[aria-label='More meeting control ']`, `a[aria-label='Captions']`, "Show Captions", Save / OK. */
	more: string;
	captions: string;
	showCaptions: string;
	captionLanguage: string;
	save: string;
	transcriptionOn: string;
	/** Older V: `button[aria-label="View"]`, "Speaker View" (with `svg.SvgSpeakerView`), Gallery View. */
	view: string;
	speakerView: string;
	galleryView: string;
	/** V zoomRemovalTexts / the `.zm-modal-body-title`. */
	removed: string;
	ended: string;
	left: string;
	cookies: string;
	acceptCookies: string;
	rejectCookies: string;
}

const EN: ZoomTexts = {
	errorTitle: "Error - Zoom",
	invalidLink: "This meeting link is invalid (3,001)",
	yourName: "Your Name",
	passcode: "Meeting Passcode",
	passcodeWrong: "Passcode wrong",
	join: "Join",
	mute: "Mute",
	unmute: "Unmute",
	stopVideo: "Stop Video",
	startVideo: "Start Video",
	permissionTitle: "Use microphone and camera",
	allow: "Allow",
	continueWithout: "Continue without microphone and camera",
	waitingRoom: "Please wait, the meeting host will let you in soon.",
	hostJoined: "Host has joined. We've let them know you're here.",
	leave: "Leave",
	leaveMeeting: "Leave Meeting",
	more: "More meeting control ",
	captions: "Captions",
	showCaptions: "Show Captions",
	captionLanguage: "Speaking language",
	save: "Save",
	transcriptionOn: "Live transcription (closed captioning) has been enabled.",
	view: "View",
	speakerView: "Speaker View",
	galleryView: "Gallery View",
	removed: "You have been removed from the meeting by the host",
	ended: "This meeting has been ended by host",
	left: "You have left the meeting.",
	cookies: "We use cookies.",
	acceptCookies: "Accept Cookies",
	rejectCookies: "Reject All",
};

/** (uncorroborated) everywhere except where noted. */
export const ZOOM_TEXTS: Record<UiLanguage, ZoomTexts> = {
	en: EN,
	de: {
		...EN,
		errorTitle: "Fehler - Zoom",
		invalidLink: "Dieser Meeting-Link ist ungültig (3,001)",
		yourName: "Ihr Name",
		passcode: "Meeting-Kenncode", // "Kenncode": Zoom's German help
		passcodeWrong: "Kenncode falsch",
		join: "Beitreten",
		mute: "Stummschalten",
		unmute: "Stummschaltung aufheben",
		stopVideo: "Video stoppen",
		startVideo: "Video starten",
		permissionTitle: "Mikrofon und Kamera verwenden",
		allow: "Zulassen",
		continueWithout: "Ohne Mikrofon und Kamera fortfahren",
		waitingRoom: "Bitte warten, der Meeting-Host lässt Sie gleich eintreten.",
		hostJoined: "Der Host ist beigetreten. Wir haben ihm mitgeteilt, dass Sie hier sind.",
		leave: "Verlassen",
		leaveMeeting: "Meeting verlassen",
		more: "Weitere Meeting-Steuerelemente",
		captions: "Untertitel",
		showCaptions: "Untertitel anzeigen",
		save: "Speichern",
		view: "Ansicht",
		speakerView: "Sprecheransicht",
		galleryView: "Galerieansicht",
		removed: "Sie wurden vom Host aus dem Meeting entfernt",
		ended: "Dieses Meeting wurde vom Host beendet",
		left: "Sie haben das Meeting verlassen.",
	},
	fr: {
		...EN,
		errorTitle: "Erreur - Zoom",
		invalidLink: "Ce lien de réunion n'est pas valide (3,001)",
		yourName: "Votre nom",
		passcode: "Code secret de la réunion", // "code secret": Zoom's French help
		passcodeWrong: "Code secret incorrect",
		join: "Rejoindre",
		mute: "Couper le son",
		unmute: "Réactiver le son",
		stopVideo: "Arrêter la vidéo",
		startVideo: "Démarrer la vidéo",
		permissionTitle: "Utiliser le micro et la caméra",
		allow: "Autoriser",
		continueWithout: "Continuer sans micro ni caméra",
		waitingRoom: "Veuillez patienter, l'hôte de la réunion va bientôt vous admettre.",
		hostJoined: "L'hôte a rejoint la réunion. Nous l'avons prévenu de votre présence.",
		leave: "Quitter",
		leaveMeeting: "Quitter la réunion",
		more: "Plus de contrôles de réunion",
		captions: "Sous-titres",
		showCaptions: "Afficher les sous-titres",
		save: "Enregistrer",
		view: "Affichage",
		speakerView: "Vue Intervenant",
		galleryView: "Vue Galerie",
		removed: "Vous avez été retiré de la réunion par l'hôte",
		ended: "Cette réunion a été terminée par l'hôte",
		left: "Vous avez quitté la réunion.",
	},
	es: {
		...EN,
		invalidLink: "Este enlace de reunión no es válido (3,001)",
		yourName: "Su nombre",
		passcode: "Código de acceso de la reunión",
		passcodeWrong: "Código de acceso incorrecto",
		join: "Unirse",
		mute: "Silenciar",
		unmute: "Reactivar audio",
		stopVideo: "Detener video",
		startVideo: "Iniciar video",
		permissionTitle: "Usar micrófono y cámara",
		allow: "Permitir",
		continueWithout: "Continuar sin micrófono ni cámara",
		waitingRoom: "Espere, el anfitrión de la reunión le permitirá entrar pronto.",
		hostJoined: "El anfitrión se ha unido. Le hemos avisado de que está aquí.",
		leave: "Salir",
		leaveMeeting: "Salir de la reunión",
		more: "Más controles de la reunión",
		captions: "Subtítulos",
		showCaptions: "Mostrar subtítulos",
		save: "Guardar",
		view: "Vista",
		speakerView: "Vista del hablante",
		galleryView: "Vista de galería",
		removed: "El anfitrión le ha eliminado de la reunión",
		ended: "El anfitrión ha finalizado esta reunión",
		left: "Ha salido de la reunión.",
	},
	pt: {
		...EN,
		errorTitle: "Erro - Zoom",
		invalidLink: "Este link de reunião é inválido (3,001)",
		yourName: "Seu nome",
		passcode: "Senha da reunião",
		passcodeWrong: "Senha incorreta",
		join: "Entrar",
		mute: "Desativar som",
		unmute: "Ativar som",
		stopVideo: "Parar vídeo",
		startVideo: "Iniciar vídeo",
		permissionTitle: "Usar microfone e câmera",
		allow: "Permitir",
		continueWithout: "Continuar sem microfone e câmera",
		waitingRoom: "Aguarde, o anfitrião da reunião permitirá sua entrada em breve.",
		hostJoined: "O anfitrião entrou. Avisamos que você está aqui.",
		leave: "Sair",
		leaveMeeting: "Sair da reunião",
		more: "Mais controles da reunião",
		captions: "Legendas",
		showCaptions: "Mostrar legendas",
		save: "Salvar",
		view: "Visualização",
		speakerView: "Visualização do orador",
		galleryView: "Visualização da galeria",
		removed: "Você foi removido da reunião pelo anfitrião",
		ended: "Esta reunião foi encerrada pelo anfitrião",
		left: "Você saiu da reunião.",
	},
};
