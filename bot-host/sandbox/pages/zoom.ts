/**
 * Sandbox Zoom web client: the React client at app.zoom.us/wc/<id>/join (`dom_version`
 * "newer") or the classic one at /wc/join/<id> ("older"), drawn from what the maintained peers
 * know of the real pages, never from our driver (texts and their sources: zoom-texts.ts).
 * V = Vexa core/meetings/modules/join/src/zoom/, older V = services/vexa-bot/.../zoom/web/,
 * A = Attendee bots/zoom_web_bot_adapter/, S = screenappai/meeting-bot src/bots/ZoomBot.ts.
 *
 * Always: Join stays disabled until real keys are typed (V), the waiting room sits inside
 * `.meeting-app` (V admission.ts), the call opens in Gallery View where the active-speaker frames
 * are not drawn (older V, live 2026-08-24), captions carry no speaker name, and "removed" is also
 * what a waiting-room denial shows. The traps (ZOOM_TRAPS) add what has broken bots on the real page.
 */

import { type MeetingPageState, pageShell } from "./shell.ts";
import type { ZOOM_TRAPS } from "./traps.ts";
import { ZOOM_TEXTS } from "./zoom-texts.ts";
import { ZOOM_VIEWS_SKIN } from "./zoom-views.ts";

type ZoomTrap = (typeof ZOOM_TRAPS)[number];

export function zoomPage(meetingId: string, state: MeetingPageState = {}): string {
	const t = ZOOM_TEXTS[state.language ?? "en"];
	const older = state.dom === "older";
	const traps = new Set(state.traps ?? []) as Set<ZoomTrap | string>;
	const text = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
	// V: React `#input-for-name` + `button.preview-join-button` (behind `.preview-meeting-info`); classic
	// `#inputname` + `#joinBtn` under a OneTrust banner (V join.ts: "verified via elementFromPoint").
	const prejoin = older
		? `<div id="onetrust-banner-sdk"><p>${text(t.cookies)}</p><button id="onetrust-accept-btn-handler">${text(t.acceptCookies)}</button><button id="onetrust-reject-all-handler">${text(t.rejectCookies)}</button></div>
<form id="preview" class="form-horizontal join-form" onsubmit="return false">
	<video id="preview-video" autoplay muted playsinline></video>
	<input id="inputname" class="form-control" type="text" placeholder="${text(t.yourName)}" autocomplete="off">
	<input id="inputpasscode" class="form-control" type="password" placeholder="${text(t.passcode)}" hidden>
	<div id="preview-error" class="form-error" hidden></div>
	<button id="preview-audio-control-button" type="button"></button>
	<button id="preview-video-control-button" type="button"></button>
	<button id="joinBtn" class="btn btn-primary submit" type="submit" disabled>${text(t.join)}</button>
</form>`
		: `<div id="preview" class="preview-meeting">
	<video id="preview-video" autoplay muted playsinline></video>
	<input id="input-for-name" class="preview-meeting-info-field-input" type="text" placeholder="${text(t.yourName)}" autocomplete="off">
	<input id="input-for-pwd" type="password" placeholder="${text(t.passcode)}" hidden>
	<div id="preview-error" class="preview-meeting-info-field-error" hidden></div>
	<button id="preview-audio-control-button"></button>
	<button id="preview-video-control-button"></button>
	<div class="preview-join-row"><button class="zm-btn preview-join-button disabled" id="preview-join">${text(t.join)}</button>
	<div class="preview-meeting-info"><span class="preview-meeting-info__topic">Zoom Meeting</span></div></div>
</div>`;
	// Newer: rows wrapped (a virtualised list); older: direct `li` children (what drivers once assumed).
	const rosterList = older
		? `<ul class="participants-ul" id="participants-ul"></ul>`
		: `<div class="participants-ul" id="participants-ul" role="list"></div>`;
	return pageShell({
		...state,
		platform: "zoom",
		meetingId,
		title: state.notFound ? t.errorTitle : "Zoom",
		css: `.disabled{opacity:.4}#onetrust-banner-sdk{position:fixed;inset:0 0 0 0;background:rgba(230,230,230,.97);z-index:10}
.zm-modal{position:fixed;top:30%;left:30%;background:#fff;border:1px solid;z-index:20;padding:8px}
.preview-join-row{position:relative;display:inline-block}
html[data-traps~="join_covered"] .preview-meeting-info{position:absolute;inset:-6px;z-index:5;background:rgba(255,255,255,.01)}
.bars-hidden #wc-footer,.bars-hidden .full-screen-widget{display:none!important}
.video-frame{position:relative;display:inline-block;vertical-align:top;width:160px;height:90px;margin:4px;background:#333;color:#fff}
.video-frame video-player,.video-frame video{display:block;width:100%;height:100%}.speaker-active-container .video-frame{width:640px;height:360px}
.video-avatar__avatar{position:absolute;inset:0;display:flex;align-items:center;justify-content:center;font-size:20px}.video-avatar__avatar-footer{position:absolute;left:4px;bottom:2px;font-size:12px}.live-transcription-subtitle__box{min-height:20px}`,
		body: `${prejoin}
<div class="meeting-app" id="meeting-app" hidden>
	<div id="waiting-room" class="wr-container" hidden><div class="wr-content"><span class="wr-tile-title" id="wr-title"></span></div><button class="leave-btn" id="wr-leave">${text(t.leave)}</button></div>
	<div id="in-meeting" hidden>
		<div class="full-screen-widget"><button class="full-screen-widget__button" id="view-button" aria-label="${text(t.view)}">${text(t.view)}</button>
			<div role="menu" class="view-menu" id="view-menu" hidden>
				<div role="menuitemradio" aria-checked="false" id="to-speaker"><svg class="SvgSpeakerView" width="12" height="12"></svg><span>${text(t.speakerView)}</span></div>
				<div role="menuitemradio" aria-checked="true" id="to-gallery"><svg class="SvgGalleryView" width="12" height="12"></svg><span>${text(t.galleryView)}</span></div>
			</div></div>
		<div id="gallery" class="gallery-video-container"></div>
		<div id="speaker-view"></div>
		<div id="live-transcription-subtitle" class="live-transcription-subtitle__box" hidden></div>
		<div id="participants-pane" class="participants-section-container" hidden>${rosterList}</div>
		<div id="chat-pane" hidden><div class="chat-container" id="chat-list"></div>
			<div class="chat-rtf-box__editor-outer"><div contenteditable="true" class="tiptap ProseMirror"></div></div>
			<button aria-label="send">Send</button></div>
		<div id="wc-footer" class="footer">
			<button class="footer-button-base__button join-audio-container__btn" id="footer-audio"></button>
			<button class="footer-button-base__button send-video-container__btn" id="footer-video"></button>
			<button id="participants-button" aria-label="open the participants list pane,[1] particpants">Participants</button>
			<button id="chat-button" aria-label="open the chat panel">Chat</button>
			<div id="more-button" role="button" aria-label="${text(t.more)}">…</div>
			<ul id="more-menu" hidden>${
				traps.has("captions_disabled")
					? ""
					: `<li><a aria-label="${text(t.captions)}" id="captions-entry">${text(t.captions)}</a>
				<ul id="captions-submenu" hidden><li><a id="show-captions" role="menuitem" aria-label="Your caption settings grouping ${text(t.showCaptions)}">${text(t.showCaptions)}</a></li></ul></li>`
			}</ul>
			<span footer-section="right"><button class="footer-button-base__button footer-button__button" aria-label="${text(t.leave)}" id="leave-button">${text(t.leave)}</button></span>
		</div>
		<div id="leave-menu" hidden><button class="zm-btn leave-meeting-options__btn leave-meeting-options__btn--default leave-meeting-options__btn--danger" aria-label="">${text(t.leaveMeeting)}</button></div>
	</div>
</div>
<div class="zm-modal" id="modal" hidden><div class="zm-modal-body"><div class="zm-modal-body-title" id="modal-title"></div></div><button class="zm-btn zm-btn--primary" id="modal-ok">OK</button></div>
<div id="invalid" hidden><div class="error-page"><h3>${text(t.invalidLink)}</h3></div></div>`,
		skin: zoomSkin(JSON.stringify(t).replace(/</g, "\\u003c"), older),
	});
}

/** The page's behaviour; `texts` is the language's ZoomTexts as JSON. */
function zoomSkin(texts: string, older: boolean): string {
	return `
const T = ${texts};
const OLDER = ${older};
const traps = new Set((document.documentElement.dataset.traps || "").split(" ").filter(Boolean));
const name = $(OLDER ? "#inputname" : "#input-for-name");
const pwd = $(OLDER ? "#inputpasscode" : "#input-for-pwd");
const join = $(OLDER ? "#joinBtn" : "#preview-join");
let micOn = true, videoOn = true, asked = false, typedAt = 0;
const params = new URLSearchParams(location.search);
scenarioReady.then((scenario) => {
	if (scenario.passcode !== null && params.get("pwd") !== scenario.passcode) pwd.hidden = false;
});
// A changed layout: the join button loses the class and id the driver finds it by.
function applyLayout(changed) {
	join.classList.toggle(OLDER ? "submit" : "preview-join-button", !changed);
	join.id = changed ? "join-v2" : OLDER ? "joinBtn" : "preview-join";
}
const joinDisabled = () => join.classList.contains("disabled") || join.disabled;
// V: Join stays disabled until real keys are typed; the trap keeps it so for a while after (V waits up to 8 s).
const refreshJoin = () => {
	const empty = name.value.trim() === "" || (!pwd.hidden && pwd.value === "");
	const late = traps.has("join_enabled_late") && Date.now() - typedAt < 3000;
	const off = empty || late;
	if (OLDER) join.disabled = off; else join.classList.toggle("disabled", off);
	if (late && !empty) setTimeout(refreshJoin, 3000 - (Date.now() - typedAt) + 20);
};
name.addEventListener("input", () => { if (!typedAt) typedAt = Date.now(); refreshJoin(); });
pwd.addEventListener("input", refreshJoin);
refreshJoin();
for (const id of ["#onetrust-accept-btn-handler", "#onetrust-reject-all-handler"]) $(id)?.addEventListener("click", () => $("#onetrust-banner-sdk").remove());
const label = (button, text) => { button.textContent = text; button.setAttribute("aria-label", text); };
const syncPreview = () => {
	label($("#preview-audio-control-button"), micOn ? T.mute : T.unmute);
	label($("#preview-video-control-button"), videoOn ? T.stopVideo : T.startVideo);
};
syncPreview();
$("#preview-audio-control-button").addEventListener("click", () => { micOn = !micOn; syncPreview(); Sandbox.setMic(micOn); });
$("#preview-video-control-button").addEventListener("click", () => { videoOn = !videoOn; syncPreview(); Sandbox.setCamera(videoOn); });
// V: the permission prompt (a portal over the page), camera+mic then mic only.
const permissionPrompt = (times, then) => {
	if (times === 0) return then?.();
	const overlay = el("div", { class: "zm-modal permission-modal", role: "dialog", style: "position:fixed;inset:0;z-index:100;background:rgba(0,0,0,.55)" });
	const box = el("div", { style: "margin:20vh auto;width:420px;background:#fff;padding:16px" });
	const allow = el("button", { class: "zm-btn zm-btn--primary" }, T.allow);
	const skip = el("button", { class: "zm-btn" }, T.continueWithout);
	box.append(el("p", {}, T.permissionTitle), allow, skip);
	overlay.append(box);
	const close = () => { overlay.remove(); setTimeout(() => permissionPrompt(times - 1, then), 300); };
	allow.addEventListener("click", close);
	skip.addEventListener("click", close);
	document.body.append(overlay);
};
if (traps.has("permission_before_name") && document.documentElement.dataset.meetingState !== "not_found") permissionPrompt(2);
// Pointer clicks on the cover land on it and do nothing (V: it "intercepts pointer events").
$(".preview-meeting-info")?.addEventListener("click", (e) => e.stopPropagation());
join.addEventListener("click", () => {
	if (joinDisabled()) return;
	asked = true;
	$("#preview-error").hidden = true;
	Sandbox.ask({ name: name.value.trim(), passcode: pwd.hidden ? params.get("pwd") : pwd.value });
	scenarioReady.then((s) => { if (s.interruptions) permissionPrompt(2); });
});
// The footer and the View widget hide after a moment without the pointer moving.
let barsTimer = null;
const wakeBars = () => {
	document.body.classList.remove("bars-hidden");
	clearTimeout(barsTimer);
	if (traps.has("footer_autohide")) barsTimer = setTimeout(() => document.body.classList.add("bars-hidden"), 1500);
};
document.addEventListener("mousemove", wakeBars);
${ZOOM_VIEWS_SKIN}
$("#more-button").addEventListener("click", () => { $("#more-menu").hidden = !$("#more-menu").hidden; });
$("#captions-entry")?.addEventListener("click", () => { $("#captions-submenu").hidden = false; });
const captionsOn = () => { $("#live-transcription-subtitle").hidden = false; Sandbox.setCaptions(true); };
// A: the caption-language modal (Save), then the transcription notice (OK); captions show after both.
const captionModal = (body, button, then) => {
	const modal = el("div", { class: "zm-modal caption-modal", role: "dialog" });
	const ok = el("button", { class: "zm-btn zm-btn--primary" }, button);
	modal.append(el("div", { class: "zm-modal-legacy-text" }, body), ok);
	ok.addEventListener("click", () => { modal.remove(); then(); });
	document.body.append(modal);
};
// The speaking language, as A sets it (zoom_web_ui_methods.py set_zoom_closed_captions_language): an
// input.transcription-language__input in the caption-language modal, a language's name typed and
// Enter pressed. Zoom shows that modal when captions are first turned on.
let captionLanguage = "English";
const languageModal = (then) => {
	const modal = el("div", { class: "zm-modal caption-modal", role: "dialog" });
	const input = el("input", { class: "transcription-language__input", type: "text", value: captionLanguage, "aria-label": T.captionLanguage });
	const save = el("button", { class: "zm-btn zm-btn--primary" }, T.save);
	input.addEventListener("keydown", (e) => {
		if (e.key !== "Enter") return;
		captionLanguage = input.value.trim();
		fetch("/__sandbox/meetings/" + encodeURIComponent(document.documentElement.dataset.meetingId) + "/choices", {
			method: "POST",
			headers: { "content-type": "application/json" },
			body: JSON.stringify({ caption_language: captionLanguage }),
		});
	});
	modal.append(el("div", { class: "zm-modal-legacy-text" }, T.captionLanguage), input, save);
	save.addEventListener("click", () => { modal.remove(); then(); });
	document.body.append(modal);
};
$("#show-captions")?.addEventListener("click", async () => {
	$("#more-menu").hidden = true;
	$("#captions-submenu").hidden = true;
	const scenario = await scenarioReady;
	const notice = () => captionModal(T.transcriptionOn, "OK", captionsOn);
	if (traps.has("caption_modals") || scenario.spoken_language) return languageModal(traps.has("caption_modals") ? notice : captionsOn);
	captionsOn();
});
// Captions come out right only in the language set for them (Zoom transcribes the speaking language it is told).
const spokenName = (code) => { try { return new Intl.DisplayNames(["en"], { type: "language" }).of(code) || code; } catch { return code; } };
let spokenLanguage = null;
scenarioReady.then((s) => { spokenLanguage = s.spoken_language; });
const captionText = (text) =>
	!spokenLanguage || captionLanguage.toLowerCase() === spokenName(spokenLanguage).toLowerCase() ? text : text.split(/s+/).map(() => "…").join(" ");
$("#participants-button").addEventListener("click", () => { $("#participants-pane").hidden = !$("#participants-pane").hidden; });
$("#chat-button").addEventListener("click", () => { $("#chat-pane").hidden = !$("#chat-pane").hidden; });
const sendChat = () => { const box = $(".chat-rtf-box__editor-outer [contenteditable]"); const text = box.textContent.trim(); box.textContent = ""; if (text) Sandbox.sendChat(text); };
$('button[aria-label="send"]').addEventListener("click", sendChat);
$(".chat-rtf-box__editor-outer [contenteditable]").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sendChat(); } });
$("#leave-button").addEventListener("click", () => { $("#leave-menu").hidden = false; });
$(".leave-meeting-options__btn--danger").addEventListener("click", () => Sandbox.leave());
$("#wr-leave").addEventListener("click", () => Sandbox.leave());
// Enter on the leave menu cancels, as on the real client (V: "Enter dismisses/cancels the dialog").
$("#leave-menu").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); $("#leave-menu").hidden = true; } });
$("#modal-ok").addEventListener("click", () => { location.href = "/wc/leave"; });
// Footer aria-labels: the web SDK's "mute my microphone" (older), "Mute"/"Unmute" (newer, older V prepare.ts);
// the trap keeps "audio" all meeting (older V live note) with the state only in the text.
const syncFooter = () => {
	const audio = $("#footer-audio");
	audio.textContent = micOn ? T.mute : T.unmute;
	audio.setAttribute("aria-label", traps.has("audio_label") ? "audio" : OLDER ? (micOn ? "mute my microphone" : "unmute my microphone") : audio.textContent);
	const video = $("#footer-video");
	video.textContent = videoOn ? T.stopVideo : T.startVideo;
	video.setAttribute("aria-label", OLDER ? (videoOn ? "stop my video" : "start my video") : video.textContent);
};
$("#footer-audio").addEventListener("click", () => { micOn = !micOn; Sandbox.setMic(micOn); syncFooter(); });
$("#footer-video").addEventListener("click", () => { videoOn = !videoOn; Sandbox.setCamera(videoOn); syncFooter(); });
// Presenting: the footer's share button (sharing-entry-button-container, "Share"; "Share Screen" on
// the older client) asks the browser for the screen, or, where the host lets only the host share,
// shows "Host disabled participant screen sharing."; "Stop Share" ends it. No maintained peer
// shares on the web client: these are the client's own (share-facts.ts).
const shareButton = el("button", { class: "footer-button-base__button sharing-entry-button-container sharing-entry-button-container--green", "aria-label": "Share" }, "Share");
if (document.documentElement.dataset.dom === "older") { shareButton.setAttribute("aria-label", "Share Screen"); shareButton.textContent = "Share Screen"; }
const stopShare = el("button", { "aria-label": "Stop Share", hidden: "" }, "Stop Share");
const shareNotice = el("div", { role: "alert", class: "sharing-disabled-tip", hidden: "" }, "Host disabled participant screen sharing.");
$("#wc-footer").insertBefore(shareButton, $("#leave-button").closest("#wc-footer > *"));
$("#in-meeting").append(stopShare, shareNotice);
shareButton.addEventListener("click", async () => {
	if ((await scenarioReady).host_disabled_screen_share) {
		shareNotice.hidden = false;
		setTimeout(() => { shareNotice.hidden = true; }, 5000);
		return;
	}
	const stream = await navigator.mediaDevices.getDisplayMedia({ video: true }).catch(() => null);
	if (!stream) return;
	stopShare.hidden = false;
	Sandbox.present(stream, () => { stopShare.hidden = true; });
});
stopShare.addEventListener("click", () => Sandbox.stopPresenting());
const roster = new Map();
const refreshRoster = () => { $("#participants-button").setAttribute("aria-label", "open the participants list pane,[" + roster.size + "] particpants"); };
let subtitle = null;
const MODAL = { removed: T.removed, denied: T.removed, ended: T.ended };
Sandbox.start({
	mixedAudio: true,
	showPreview(stream) { $("#preview-video").srcObject = stream; },
	renderPhase(phase) {
		syncFooter();
		if (phase === "lobby" || phase === "in_call") {
			$("#preview").hidden = true;
			$("#onetrust-banner-sdk")?.remove();
			$("#meeting-app").hidden = false;
			$("#waiting-room").hidden = phase !== "lobby";
			$("#wr-title").textContent = T.waitingRoom;
			$("#in-meeting").hidden = phase !== "in_call";
			if (phase === "in_call") { setView(false); wakeBars(); }
		} else if (phase === "ended" && $("#meeting-app").hidden === false && (traps.has("end_redirects_signin") || traps.has("end_redirects_join"))) {
			// The meeting's end sends the page elsewhere instead of showing the modal (V removal.ts).
			location.href = traps.has("end_redirects_signin") ? "/signin" : "/wc/" + encodeURIComponent(document.documentElement.dataset.meetingId) + "/join";
		} else if (MODAL[phase]) {
			$("#modal-title").textContent = MODAL[phase];
			$("#modal").hidden = false;
			$("#in-meeting").hidden = true;
			$("#waiting-room").hidden = true;
		} else if (phase === "not_found" && asked) {
			// A: a wrong passcode is said on the pre-join, not with the 3,001 page.
			$("#preview-error").textContent = T.passcodeWrong;
			$("#preview-error").hidden = false;
		} else if (phase === "not_found") {
			document.title = T.errorTitle;
			$("#preview").hidden = true;
			$("#onetrust-banner-sdk")?.remove();
			$("#invalid").hidden = false;
		} else if (phase === "left") {
			$("#meeting-app").hidden = true;
			document.body.append(el("div", { class: "left-meeting" }, T.left));
		}
	},
	addParticipant(p) {
		roster.set(p.id, p.name);
		if (p.camera) cameraOn.add(p.id);
		$("#gallery").append(tile("gallery-video-container__video-frame", p));
		drawSpeakerView();
		const row = el("div", { class: "participants-li participants-item-position", role: "listitem", "data-participant": p.id });
		row.append(el("span", { class: "participants-item__display-name" }, p.name));
		if (p.self) row.append(el("span", { class: "participants-item__name-label" }, "(Me)"));
		if (OLDER) {
			const li = el("li", { class: "participants-li", "data-participant": p.id });
			li.append(...row.childNodes);
			$("#participants-ul").append(li);
		} else {
			const wrapper = el("div", { class: "participants-item-wrapper", "data-participant": p.id });
			wrapper.append(row);
			$("#participants-ul").append(wrapper);
		}
		refreshRoster();
	},
	removeParticipant(p) {
		roster.delete(p.id);
		speaking.delete(p.id);
		cameraOn.delete(p.id);
		dropPlayers(p.id);
		if (lastSpeaker?.id === p.id) lastSpeaker = null;
		document.querySelectorAll('[data-participant="' + p.id + '"]').forEach((e) => e.remove());
		drawSpeakerView();
		refreshRoster();
	},
	setSpeaking(id, name, on) {
		if (on) { speaking.add(id); lastSpeaker = { id, name }; } else speaking.delete(id);
		drawSpeakerView();
	},
	// Gallery View rings the active speaker's frame (the sandbox's own colour and style: no peer names them).
	setActiveSpeaker(id) {
		for (const frame of document.querySelectorAll(".gallery-video-container__video-frame"))
			frame.style.outline = frame.dataset.participant === id ? "3px solid #23d959" : "";
	},
	// The subtitle shows the current line only, with no name. The trap reuses one span for every line.
	captionStart() {
		const box = $("#live-transcription-subtitle");
		if (traps.has("caption_span_reused") && subtitle) return subtitle;
		box.replaceChildren();
		subtitle = el("span", { class: "live-transcription-subtitle__item" }, "");
		box.append(subtitle);
		return subtitle;
	},
	captionUpdate(item, text) { item.textContent = captionText(text); },
	chatMessage(m) {
		const c = el("div", { class: "new-chat-message__container", "aria-label": (m.self ? "You" : m.sender) + " said to Everyone: " + m.text });
		c.append(el("div", { class: "chat-item__sender" }, m.self ? "Me" : m.sender), el("div", { class: "new-chat-message__text-box" }, m.text));
		$("#chat-list").append(c);
	},
});
`;
}
