/**
 * Sandbox Google Meet. Hooks and texts as on meet.google.com (docs/sandbox.md#how-each-platform-is-imitated), including its
 * traps: the toolbar with "Leave call" and the mic/camera buttons is already there in the
 * lobby, "Backgrounds and effects" carries data-participant-id, the self preview is live,
 * speaking classes rotate, and old caption entries disappear.
 */
import { type MeetingPageState, pageShell } from "./shell.ts";

export function googleMeetPage(code: string, state: MeetingPageState = {}): string {
	return pageShell({
		...state,
		platform: "google_meet",
		meetingId: code,
		title: `Meet - ${code}`,
		css: `.tile{display:inline-block;margin:4px;padding:4px;border:2px solid #444}.tile .Oaajhc,.tile .HX2H7,.tile .wEsLMd,.tile .OgVli{outline:3px solid #4c8}`,
		body: `
<div id="prejoin">
	<div class="preview"><video id="self-preview" autoplay muted playsinline></video>
		<div role="button" aria-label="Backgrounds and effects" data-participant-id="effects-menu"></div></div>
	<h1>Ready to join?</h1>
	<input type="text" jsname="YPqjbf" aria-label="Your name" placeholder="Your name" autocomplete="off">
	<button id="join" disabled><span class="UywwFc-vQzf8d"></span></button>
	<div id="lobby" hidden><div>Asking to be let in…</div><div>You’ll join the call when someone lets you in</div><button>Return to home screen</button></div>
</div>
<div id="call" hidden>
	<div id="tiles"></div>
	<div role="region" aria-label="Captions" id="captions" hidden></div>
	<div id="people-panel" hidden><div aria-label="Participants" role="list" id="people"></div></div>
	<div id="chat-panel" hidden><div id="chat-messages"></div><textarea aria-label="Send a message"></textarea></div>
</div>
<div id="outcome" hidden><h1 id="outcome-title"></h1><div class="roSPhc" id="outcome-text"></div><button>Return to home screen</button></div>
<div id="toolbar" role="region" aria-label="Call controls">
	<div role="button" id="mic" aria-label="Turn off microphone" data-is-muted="false"></div>
	<div role="button" id="cam" aria-label="Turn off camera" data-is-muted="false"></div>
	<span id="in-call-controls" hidden>
		<button id="cc" aria-label="Turn on captions"></button>
		<button aria-label="Present now"></button>
		<button id="people-button" aria-label="People"></button>
		<button id="chat-button" aria-label="Chat with everyone"></button>
	</span>
	<button jsname="CQylAd" aria-label="Leave call" id="leave"></button>
</div>`,
		skin: `
const SPEAKING = ["Oaajhc", "HX2H7", "wEsLMd", "OgVli"];
const nameInput = $('input[aria-label="Your name"]');
const joinButton = $("#join");
let captionSeq = 0;
let messageSeq = 0;
const toggle = (button, what, on) => {
	button.setAttribute("aria-label", (on ? "Turn off " : "Turn on ") + what);
	button.dataset.isMuted = String(!on);
};
// A changed layout: the join button says something no driver looks for.
function applyLayout(changed) {
	scenarioReady.then((scenario) => {
		joinButton.firstElementChild.textContent = changed ? "Request entry" : scenario.direct_join ? "Join now" : "Ask to join";
	});
}
nameInput.addEventListener("input", () => { joinButton.disabled = nameInput.value.trim() === ""; });
$("#mic").addEventListener("click", (e) => { const on = e.currentTarget.dataset.isMuted === "true"; toggle(e.currentTarget, "microphone", on); Sandbox.setMic(on); });
$("#cam").addEventListener("click", (e) => { const on = e.currentTarget.dataset.isMuted === "true"; toggle(e.currentTarget, "camera", on); Sandbox.setCamera(on); });
joinButton.addEventListener("click", (e) => {
	joinButton.hidden = true;
	Sandbox.ask({ name: nameInput.value.trim(), trigger: e });
});
$("#leave").addEventListener("click", () => Sandbox.leave());
$("#cc").addEventListener("click", (e) => {
	const on = e.currentTarget.getAttribute("aria-label") === "Turn on captions";
	e.currentTarget.setAttribute("aria-label", on ? "Turn off captions" : "Turn on captions");
	$("#captions").hidden = !on;
	Sandbox.setCaptions(on);
});
$("#people-button").addEventListener("click", () => { $("#people-panel").hidden = !$("#people-panel").hidden; });
$("#chat-button").addEventListener("click", () => { $("#chat-panel").hidden = !$("#chat-panel").hidden; });
$("#chat-panel textarea").addEventListener("keydown", (e) => {
	if (e.key !== "Enter" || e.shiftKey) return;
	e.preventDefault();
	const text = e.currentTarget.value.trim();
	e.currentTarget.value = "";
	if (text) Sandbox.sendChat(text);
});
const OUTCOMES = {
	denied: ["You can't join this video call", "Someone in the call denied your request to join"],
	removed: ["", "You've been removed from the meeting"],
	ended: ["", "Your host ended the meeting for everyone"],
	left: ["", "You left the meeting"],
	not_found: ["Check your meeting code", "Invalid video call name."],
};
Sandbox.start({
	mixedAudio: false,
	showPreview(stream) { $("#self-preview").srcObject = stream; },
	renderPhase(phase) {
		$("#lobby").hidden = phase !== "lobby";
		if (phase === "in_call") {
			scenarioReady.then((s) => {
				if (s.interruptions) popup({ text: "This video call is being recorded", button: "Got it", buttonAttrs: { "data-mdc-dialog-action": "ok" } });
			});
			$("#prejoin").hidden = true;
			$("#call").hidden = false;
			$("#in-call-controls").hidden = false;
		} else if (OUTCOMES[phase]) {
			for (const id of ["prejoin", "call", "toolbar"]) $("#" + id).hidden = true;
			$("#outcome").hidden = false;
			$("#outcome-title").textContent = OUTCOMES[phase][0];
			$("#outcome-text").textContent = OUTCOMES[phase][1];
		}
	},
	addParticipant(p) {
		const tile = el("div", { class: "tile", "data-participant-id": "spaces/sandbox/devices/" + p.id, "data-requested-participant-id": p.id });
		if (p.self) tile.setAttribute("data-self-name", "You");
		tile.append(el("div", { "data-audio-level": "0", class: "level" }), el("span", { class: "notranslate" }, p.name));
		$("#tiles").append(tile);
		const item = el("div", { role: "listitem", "aria-label": p.name, "data-participant-id": p.id });
		item.append(el("span", { class: "zWGUib" }, p.name));
		if (p.self) item.append(el("span", { class: "NnTWjc" }, "(You)"));
		$("#people").append(item);
	},
	removeParticipant(p) {
		document.querySelectorAll('[data-requested-participant-id="' + p.id + '"], #people [data-participant-id="' + p.id + '"]').forEach((e) => e.remove());
	},
	setSpeaking(id, name, on) {
		const level = document.querySelector('[data-requested-participant-id="' + id + '"] .level');
		if (!level) return;
		level.className = "level" + (on ? " " + SPEAKING[Math.floor(Math.random() * SPEAKING.length)] : "");
		level.setAttribute("data-audio-level", on ? "0.6" : "0");
	},
	captionStart(id, name) {
		const entry = el("div", { class: "nMcdL", "data-caption-seq": String(++captionSeq) });
		const head = el("div", { class: "KcIKyf" });
		head.append(el("span", { class: "NWpY1d" }, name));
		entry.append(head, el("div", { class: "ygicle VbkSUe" }, ""));
		$("#captions").append(entry);
		// Meet keeps only the last few lines on screen.
		while ($("#captions").children.length > 3) $("#captions").firstElementChild.remove();
		return entry;
	},
	captionUpdate(entry, text) { entry.querySelector(".ygicle").textContent = text; },
	chatMessage(m) {
		const group = el("div", { class: "Ss4fHf" });
		const head = el("div", { class: "HNucUd" });
		head.append(el("div", { class: "poVWob" }, m.self ? "You" : m.sender), el("div", { class: "MuzmKe" }, new Date().toLocaleTimeString()));
		const body = el("div", { "data-message-id": "m" + ++messageSeq });
		body.append(el("div", { class: "jO4O1" }, m.text));
		group.append(head, body);
		$("#chat-messages").append(group);
	},
});
`,
	});
}
