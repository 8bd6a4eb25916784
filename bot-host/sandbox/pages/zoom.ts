/**
 * Sandbox Zoom web client (app.zoom.us/wc/<id>/join). Hooks and texts as docs/sandbox.md#how-each-platform-is-imitated lists them,
 * with its traps: a cookie banner over the form, Join stays `.disabled` until the name is
 * typed, the waiting room renders inside `.meeting-app`, captions carry no speaker name, and
 * "You have been removed" is also what a waiting-room denial looks like.
 */
import { type MeetingPageState, pageShell } from "./shell.ts";

export function zoomPage(meetingId: string, state: MeetingPageState = {}): string {
	return pageShell({
		...state,
		platform: "zoom",
		meetingId,
		title: "Zoom",
		css: `.disabled{opacity:.4}#onetrust-banner-sdk{position:fixed;inset:auto 0 0 0;height:40%;background:#eee;z-index:10}.zm-modal{position:fixed;top:30%;left:30%;background:#fff;border:1px solid;z-index:20}`,
		body: `
<div id="onetrust-banner-sdk"><p>We use cookies.</p><button id="onetrust-accept-btn-handler">Accept Cookies</button></div>
<div id="preview" class="preview-meeting">
	<video id="preview-video" autoplay muted playsinline></video>
	<div class="preview-meeting-info"><span>Meeting ${""}</span></div>
	<input id="input-for-name" type="text" placeholder="Your Name" autocomplete="off">
	<input id="input-for-pwd" type="password" placeholder="Meeting Passcode" hidden>
	<button id="preview-audio-control-button" aria-label="Mute">Mute</button>
	<button id="preview-video-control-button" aria-label="Stop Video">Stop Video</button>
	<button class="preview-join-button disabled" id="preview-join">Join</button>
</div>
<div class="meeting-app" id="meeting-app" hidden>
	<div id="waiting-room" hidden><div class="wr-content"><span class="wr-tile-title">Please wait, the meeting host will let you in soon.</span></div><button class="wr-leave-btn" aria-label="Leave">Leave</button></div>
	<div id="in-meeting" hidden>
		<div class="speaker-active-container"><div class="speaker-active-container__video-frame" id="active-frame" hidden><div class="video-avatar__avatar-footer"><span></span></div></div></div>
		<div class="speaker-bar-container" id="speaker-bar"></div>
		<div id="live-transcription-subtitle" class="live-transcription-subtitle__box" hidden></div>
		<div id="participants-pane" hidden><ul class="participants-ul" id="participants-ul"></ul></div>
		<div id="chat-pane" hidden><div class="chat-container" id="chat-list"></div>
			<div class="chat-rtf-box__editor-outer"><div contenteditable="true" class="tiptap"></div></div>
			<button aria-label="send">Send</button></div>
		<div id="footer" class="footer">
			<button class="join-audio-container__btn" id="footer-audio" aria-label="unmute my microphone">Unmute</button>
			<button class="send-video-container__btn" id="footer-video" aria-label="start my video">Start Video</button>
			<button id="participants-button" aria-label="open the participants list pane,[1] particpants">Participants</button>
			<button id="chat-button" aria-label="open the chat panel">Chat</button>
			<div id="more-button" role="button" aria-label="More meeting control ">More</div>
			<ul id="more-menu" hidden><li><a aria-label="Captions" id="captions-entry">Captions</a>
				<ul id="captions-submenu" hidden><li><a id="show-captions" role="menuitem">Show Captions</a></li></ul></li></ul>
			<button aria-label="Leave" id="leave-button">Leave</button>
		</div>
		<div id="leave-menu" hidden><button class="leave-meeting-options__btn leave-meeting-options__btn--default leave-meeting-options__btn--danger" aria-label="">Leave Meeting</button></div>
	</div>
</div>
<div class="zm-modal" id="modal" hidden><div class="zm-modal-body-title" id="modal-title"></div><button class="zm-btn">OK</button></div>
<div id="invalid" hidden><h1>This meeting link is invalid (3,001)</h1></div>`,
		skin: `
const name = $("#input-for-name");
const pwd = $("#input-for-pwd");
const join = $("#preview-join");
let micOn = true, videoOn = true;
const params = new URLSearchParams(location.search);
scenarioReady.then((scenario) => {
	if (scenario.passcode !== null && params.get("pwd") !== scenario.passcode) pwd.hidden = false;
});
// A changed layout: the join button loses the class the driver finds it by.
function applyLayout(changed) {
	join.classList.toggle("preview-join-button", !changed);
	join.classList.toggle("preview-join-btn-v2", changed);
}
const refreshJoin = () => join.classList.toggle("disabled", name.value.trim() === "" || (!pwd.hidden && pwd.value === ""));
name.addEventListener("input", refreshJoin);
pwd.addEventListener("input", refreshJoin);
$("#onetrust-accept-btn-handler").addEventListener("click", () => $("#onetrust-banner-sdk").remove());
$("#preview-audio-control-button").addEventListener("click", (e) => {
	micOn = !micOn; e.currentTarget.textContent = micOn ? "Mute" : "Unmute"; e.currentTarget.setAttribute("aria-label", micOn ? "Mute" : "Unmute"); Sandbox.setMic(micOn);
});
$("#preview-video-control-button").addEventListener("click", (e) => {
	videoOn = !videoOn; e.currentTarget.textContent = videoOn ? "Stop Video" : "Start Video"; e.currentTarget.setAttribute("aria-label", videoOn ? "Stop Video" : "Start Video"); Sandbox.setCamera(videoOn);
});
join.addEventListener("click", () => {
	if (join.classList.contains("disabled")) return;
	Sandbox.ask({ name: name.value.trim(), passcode: pwd.hidden ? params.get("pwd") : pwd.value });
	// The browser-permission explainer, which comes back a second time.
	scenarioReady.then((s) => {
		const ask = (again) => popup({ text: "app.zoom.us wants to use your microphone and camera", button: "Allow", onClose: again ? () => setTimeout(() => ask(false), 300) : undefined });
		if (s.interruptions) ask(true);
	});
});
$("#more-button").addEventListener("click", () => { $("#more-menu").hidden = !$("#more-menu").hidden; });
$("#captions-entry").addEventListener("click", () => { $("#captions-submenu").hidden = false; });
$("#show-captions").addEventListener("click", () => { $("#more-menu").hidden = true; $("#live-transcription-subtitle").hidden = false; Sandbox.setCaptions(true); });
$("#participants-button").addEventListener("click", () => { $("#participants-pane").hidden = !$("#participants-pane").hidden; });
$("#chat-button").addEventListener("click", () => { $("#chat-pane").hidden = !$("#chat-pane").hidden; });
const sendChat = () => { const box = $(".chat-rtf-box__editor-outer [contenteditable]"); const text = box.textContent.trim(); box.textContent = ""; if (text) Sandbox.sendChat(text); };
$('button[aria-label="send"]').addEventListener("click", sendChat);
$(".chat-rtf-box__editor-outer [contenteditable]").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); sendChat(); } });
$("#leave-button").addEventListener("click", () => { $("#leave-menu").hidden = false; });
$(".leave-meeting-options__btn--danger").addEventListener("click", () => Sandbox.leave());
$(".wr-leave-btn").addEventListener("click", () => Sandbox.leave());
// Enter on the leave menu cancels, as on the real client.
$("#leave-menu").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); $("#leave-menu").hidden = true; } });
$("#modal .zm-btn").addEventListener("click", () => { location.href = "/wc/leave"; });
const syncFooter = () => {
	$("#footer-audio").textContent = micOn ? "Mute" : "Unmute";
	$("#footer-audio").setAttribute("aria-label", micOn ? "mute my microphone" : "unmute my microphone");
	$("#footer-video").textContent = videoOn ? "Stop Video" : "Start Video";
	$("#footer-video").setAttribute("aria-label", videoOn ? "stop my video" : "start my video");
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
$("#footer").insertBefore(shareButton, $("#leave-button"));
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
let subtitleSeq = 0;
const MODAL = { removed: "You have been removed", denied: "You have been removed", ended: "This meeting has been ended by host" };
Sandbox.start({
	mixedAudio: true,
	showPreview(stream) { $("#preview-video").srcObject = stream; },
	renderPhase(phase) {
		syncFooter();
		if (phase === "lobby" || phase === "in_call") {
			$("#preview").hidden = true;
			$("#meeting-app").hidden = false;
			$("#waiting-room").hidden = phase !== "lobby";
			$("#in-meeting").hidden = phase !== "in_call";
		} else if (MODAL[phase]) {
			$("#modal-title").textContent = MODAL[phase];
			$("#modal").hidden = false;
			$("#in-meeting").hidden = true;
			$("#waiting-room").hidden = true;
		} else if (phase === "not_found") {
			document.title = "Error - Zoom";
			$("#preview").hidden = true;
			$("#invalid").hidden = false;
		} else if (phase === "left") {
			$("#meeting-app").hidden = true;
			document.body.append(el("div", { class: "left-meeting" }, "You have left the meeting."));
		}
	},
	addParticipant(p) {
		roster.set(p.id, p.name);
		const frame = el("div", { class: "speaker-bar-container__video-frame", "data-participant": p.id });
		const footer = el("div", { class: "video-avatar__avatar-footer" });
		footer.append(el("span", {}, p.name));
		frame.append(footer);
		$("#speaker-bar").append(frame);
		const item = el("li", { class: "participants-item-position", "data-participant": p.id });
		item.append(el("span", { class: "participants-item__display-name" }, p.name));
		if (p.self) item.append(el("span", { class: "participants-item__name-label" }, "(Me)"));
		$("#participants-ul").append(item);
		refreshRoster();
	},
	removeParticipant(p) {
		roster.delete(p.id);
		document.querySelectorAll('[data-participant="' + p.id + '"]').forEach((e) => e.remove());
		refreshRoster();
	},
	setSpeaking(id, name, on) {
		const frame = $('.speaker-bar-container [data-participant="' + id + '"]');
		frame?.classList.toggle("speaker-bar-container__video-frame--active", on);
		if (on) { $("#active-frame span").textContent = name; $("#active-frame").hidden = false; }
	},
	// The web client's subtitle shows the current line only, with no name: the bot has to use the active speaker.
	captionStart() {
		const box = $("#live-transcription-subtitle");
		box.replaceChildren();
		const item = el("div", { class: "live-transcription-subtitle__item", "data-subtitle": String(++subtitleSeq) }, "");
		box.append(item);
		return item;
	},
	captionUpdate(item, text) { item.textContent = text; },
	chatMessage(m) {
		const c = el("div", { class: "new-chat-message__container", "aria-label": (m.self ? "You" : m.sender) + " said to Everyone: " + m.text });
		c.append(el("div", { class: "chat-item__sender" }, m.self ? "Me" : m.sender), el("div", { class: "new-chat-message__text-box" }, m.text));
		$("#chat-list").append(c);
	},
});
`,
	});
}
