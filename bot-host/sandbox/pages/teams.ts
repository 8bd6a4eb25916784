/**
 * Sandbox Teams web (teams.microsoft.com/meet/<id>?p=<passcode>). Hooks and texts per
 * docs/sandbox.md#how-each-platform-is-imitated, with its traps: a "Continue on this browser" launcher, a disabled
 * pre-join "Join now" left in the DOM during the lobby, captions that mount only after
 * speech and mutate in place, chat messages that exist only while the panel is open.
 */
import { type MeetingPageState, pageShell } from "./shell.ts";

export function teamsPage(meetingId: string, state: MeetingPageState = {}): string {
	return pageShell({
		...state,
		platform: "teams",
		meetingId,
		title: "Microsoft Teams",
		css: `[data-tid="voice-level-stream-outline"]{position:absolute;inset:0;border:3px solid #77f}[data-stream-type]{position:relative;display:inline-block;width:120px;height:70px;margin:4px;background:#333;color:#fff}`,
		body: `
<div id="launcher"><h1>How do you want to join your Teams meeting?</h1><button id="continue-browser">Continue on this browser</button><button>Join on the Teams app</button></div>
<div id="prejoin" hidden>
	<video id="prejoin-video" autoplay muted playsinline></video>
	<input data-tid="prejoin-display-name-input" placeholder="Type your name" autocomplete="off">
	<input data-tid="prejoin-passcode-input" placeholder="Meeting passcode" hidden>
	<div role="switch" data-tid="toggle-video" aria-checked="true" aria-label="Camera"></div>
	<div role="switch" data-tid="toggle-mute" aria-checked="true" aria-label="Microphone"></div>
	<label><input type="radio" name="audio" checked> Computer audio</label>
	<button data-tid="prejoin-join-button" disabled>Join now</button>
	<div id="lobby" hidden><span>Someone will let you in soon</span><button data-tid="prejoin-cancel-button">Cancel</button></div>
</div>
<div id="call" hidden>
	<div id="stage"></div>
	<div id="captions-host"></div>
	<div id="roster-panel" hidden><div data-tid="roster"><div role="tree" id="roster-list"></div></div></div>
	<div id="chat-panel" hidden><div id="chat-list"></div><div contenteditable="true" placeholder="Type a message" data-tid="ckeditor" role="textbox"></div></div>
	<div id="calling-controls">
		<button id="roster-button" aria-label="People">People</button>
		<button id="chat-button" aria-label="Chat">Chat</button>
		<button id="callingButtons-showMoreBtn" aria-label="More">More</button>
		<div role="menu" id="more-menu" hidden><div role="menuitem" id="captions-item" aria-label="Captions">Captions</div></div>
		<button id="microphone-button" data-state="mic" aria-label="Mute">Mic</button>
		<button id="video-button" data-state="call-video" aria-label="Turn camera off">Camera</button>
		<button id="hangup-button" data-tid="hangup-main-btn" aria-label="Leave">Leave</button>
	</div>
</div>
<div id="retry" hidden><h2 id="calling-retry-screen-title"></h2><button>Rejoin</button></div>`,
		skin: `
const nameInput = $('[data-tid="prejoin-display-name-input"]');
const passInput = $('[data-tid="prejoin-passcode-input"]');
const joinButton = $('[data-tid="prejoin-join-button"]');
const params = new URLSearchParams(location.search);
const chat = [];
let chatOpen = false;
scenarioReady.then((scenario) => {
	if (scenario.passcode !== null && params.get("p") !== scenario.passcode) passInput.hidden = false;
});
$("#continue-browser").addEventListener("click", () => { $("#launcher").hidden = true; $("#prejoin").hidden = false; });
// A changed layout: the join button carries a data-tid the driver does not know.
function applyLayout(changed) {
	joinButton.setAttribute("data-tid", changed ? "prejoin-join-btn-v2" : "prejoin-join-button");
}
nameInput.addEventListener("input", () => { joinButton.disabled = nameInput.value.trim() === ""; });
for (const [tid, set] of [["toggle-mute", (on) => Sandbox.setMic(on)], ["toggle-video", (on) => Sandbox.setCamera(on)]]) {
	$('[data-tid="' + tid + '"]').addEventListener("click", (e) => {
		const on = e.currentTarget.getAttribute("aria-checked") !== "true";
		e.currentTarget.setAttribute("aria-checked", String(on));
		set(on);
	});
}
const media = { mic: true, camera: true };
const syncCallButtons = () => {
	$("#microphone-button").dataset.state = media.mic ? "mic" : "mic-off";
	$("#microphone-button").setAttribute("aria-label", media.mic ? "Mute" : "Unmute");
	$("#video-button").dataset.state = media.camera ? "call-video" : "call-video-off";
	$("#video-button").setAttribute("aria-label", media.camera ? "Turn camera off" : "Turn camera on");
};
$("#microphone-button").addEventListener("click", () => { media.mic = !media.mic; Sandbox.setMic(media.mic); syncCallButtons(); });
$("#video-button").addEventListener("click", () => { media.camera = !media.camera; Sandbox.setCamera(media.camera); syncCallButtons(); });
joinButton.addEventListener("click", () => {
	media.mic = $('[data-tid="toggle-mute"]').getAttribute("aria-checked") === "true";
	media.camera = $('[data-tid="toggle-video"]').getAttribute("aria-checked") === "true";
	syncCallButtons();
	const ask = () => {
		joinButton.disabled = true;
		Sandbox.ask({ name: nameInput.value.trim(), passcode: passInput.hidden ? params.get("p") : passInput.value });
	};
	// The light-meeting audio/video prompt: "Join now" stays in the DOM underneath it.
	scenarioReady.then((s) => (s.interruptions ? popup({ text: "Are you sure you don't want audio or video?", button: "Continue without audio or video", onClose: ask }) : ask()));
});
$('[data-tid="prejoin-cancel-button"]').addEventListener("click", () => Sandbox.leave());
$("#hangup-button").addEventListener("click", () => Sandbox.leave());
$("#callingButtons-showMoreBtn").addEventListener("click", () => { $("#more-menu").hidden = !$("#more-menu").hidden; });
$("#captions-item").addEventListener("click", () => { $("#more-menu").hidden = true; Sandbox.setCaptions(true); });
$("#roster-button").addEventListener("click", () => { $("#roster-panel").hidden = !$("#roster-panel").hidden; });
const renderChat = () => {
	// Teams keeps chat messages in the DOM only while the chat panel is open.
	$("#chat-list").replaceChildren();
	if (!chatOpen) return;
	let lastSender = null;
	for (const m of chat) {
		const item = el("div", { "data-tid": "chat-pane-message" });
		if (m.sender !== lastSender) item.append(el("span", { "data-tid": "message-author-name" }, m.sender));
		item.append(el("div", { "data-tid": "messageBodyContent" }, m.text));
		$("#chat-list").append(item);
		lastSender = m.sender;
	}
};
$("#chat-button").addEventListener("click", () => { chatOpen = !chatOpen; $("#chat-panel").hidden = !chatOpen; renderChat(); });
$('#chat-panel [contenteditable]').addEventListener("keydown", (e) => {
	if (e.key !== "Enter") return;
	e.preventDefault();
	const text = e.currentTarget.textContent.trim();
	e.currentTarget.textContent = "";
	if (text) Sandbox.sendChat(text);
});
// Presenting, as Attendee (teams_chromedriver_payload.js) presses it: #share-button ("Share content";
// #screenshare-button on the older page) asks the browser for the screen and "Stop sharing" ends
// it. An anonymous guest the meeting does not let present has no share button.
const olderTeams = document.documentElement.dataset.dom === "older";
const shareButton = el("button", { id: olderTeams ? "screenshare-button" : "share-button", "aria-label": olderTeams ? "Share" : "Share content" }, "Share");
const stopSharing = el("button", { "aria-label": "Stop sharing", hidden: "" }, "Stop sharing");
$("#calling-controls").insertBefore(shareButton, $("#hangup-button"));
$("#calling-controls").append(stopSharing);
scenarioReady.then((s) => { if (s.host_disabled_screen_share) shareButton.remove(); });
shareButton.addEventListener("click", async () => {
	const stream = await navigator.mediaDevices.getDisplayMedia({ video: true }).catch(() => null);
	if (!stream) return;
	stopSharing.hidden = false;
	Sandbox.present(stream, () => { stopSharing.hidden = true; });
});
stopSharing.addEventListener("click", () => Sandbox.stopPresenting());
const RETRY = {
	denied: "Sorry, but you were denied access to the meeting.",
	removed: "You've been removed from this meeting",
	ended: "The meeting has ended",
	not_found: "This meeting link is invalid",
	left: "You left the meeting",
};
Sandbox.start({
	mixedAudio: true,
	peerAudio: true,
	// The lobby text stays up, but the pre-join "Join now" is enabled again.
	lobbyDropped() { joinButton.disabled = false; },
	showPreview(stream) { $("#prejoin-video").srcObject = stream; },
	renderPhase(phase) {
		$("#lobby").hidden = phase !== "lobby";
		if (phase === "in_call") { $("#prejoin").hidden = true; $("#call").hidden = false; }
		else if (RETRY[phase]) {
			for (const id of ["launcher", "prejoin", "call"]) $("#" + id).hidden = true;
			$("#retry").hidden = false;
			$("#calling-retry-screen-title").textContent = RETRY[phase];
		}
	},
	addParticipant(p) {
		const tile = el("div", { "data-stream-type": "Video", "data-tid": p.name, "data-participant": p.id }, p.name);
		$("#stage").append(tile);
		const row = el("div", { "data-tid": "roster-participant", "data-participant": p.id });
		row.append(el("span", { class: "roster-name" }, p.name));
		if (p.self) row.append(el("span", {}, "(Guest)"));
		$("#roster-list").append(row);
	},
	removeParticipant(p) { document.querySelectorAll('[data-participant="' + p.id + '"]').forEach((e) => e.remove()); },
	setSpeaking(id, name, on) {
		const tile = $('[data-stream-type][data-participant="' + id + '"]');
		if (!tile) return;
		const outline = tile.querySelector('[data-tid="voice-level-stream-outline"]');
		if (on && !outline) tile.append(el("div", { "data-tid": "voice-level-stream-outline" }));
		if (!on && outline) outline.remove();
	},
	captionStart(id, name) {
		let wrapper = $('[data-tid="closed-caption-renderer-wrapper"]');
		if (!wrapper) {
			// Mounts only once someone has spoken.
			wrapper = el("div", { "data-tid": "closed-caption-renderer-wrapper" });
			wrapper.append(el("div", { class: "ui-chat", id: "caption-list" }));
			$("#captions-host").append(wrapper);
		}
		const item = el("div", { class: "ui-chat__item" });
		item.append(el("span", { "data-tid": "author" }, name), el("span", { "data-tid": "closed-caption-text" }, ""));
		$("#caption-list").append(item);
		// The list is virtualised: only the most recent entries stay mounted.
		while ($("#caption-list").children.length > 5) $("#caption-list").firstElementChild.remove();
		return item;
	},
	captionUpdate(item, text) { item.querySelector('[data-tid="closed-caption-text"]').textContent = text; },
	chatMessage(m) { chat.push({ sender: m.self ? "You" : m.sender, text: m.text }); renderChat(); },
});
`,
	});
}
