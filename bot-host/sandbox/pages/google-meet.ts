/**
 * Sandbox Google Meet, built from what the maintained bots know of meet.google.com (sources in
 * google-meet-texts.ts), never from our driver. The page comes in the scenario's UI language and
 * page generation (`dom_version`: "older" has the 2023-24 caption classes, no captions region
 * role, B's chat field and another outcome class) and sets the traps the scenario names
 * (traps.ts MEET_TRAPS; docs/sandbox.md#google-meet). Always there, as on the real page: the
 * toolbar with "Leave call" and the mic/camera toggles in the lobby, "Backgrounds and effects"
 * carrying data-participant-id, a live self preview, rotating speaking classes, old caption
 * entries dropping off, and modal dialogs that take every click while they show.
 */
import { MEET_CAPTION_LANGUAGES, MEET_TRAP_TEXTS, meetUi } from "./google-meet-texts.ts";
import { escapeHtml as h, type MeetingPageState, pageShell } from "./shell.ts";

/** Data for the skin script, safe inside <script>. */
const script = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export function googleMeetPage(code: string, state: MeetingPageState = {}): string {
	const ui = meetUi(state.language ?? "en");
	const older = state.dom === "older";
	const traps = new Set(state.traps ?? []);
	// sanand0/tools gmeetcaptions fixture (today): the region inside its jsname wrapper. Older
	// extensions found captions by jscontroller D1tHje / .a4cQT and jsname dsyhDe, with no region role.
	const captions = older
		? `<div class="a4cQT" jscontroller="D1tHje" id="captions-wrap" hidden><div jsname="dsyhDe" class="iOzk7" id="captions"></div></div>`
		: `<div jsname="dsyhDe" class="iOzk7" id="captions-wrap" hidden><div tabindex="0" role="region" aria-label="${h(ui.captions)}" class="vNKgIf UDinHf" id="captions"></div></div>`;
	// A: textarea[aria-label="Send a message"]; B (2025): aria-label "Send a message to everyone", placeholder "Send a message".
	const chatInput = older
		? `<textarea placeholder="${h(ui.sendMessage)}"${state.language === "en" || !state.language ? ' aria-label="Send a message to everyone"' : ""}></textarea>`
		: `<textarea aria-label="${h(ui.sendMessage)}"></textarea>`;
	const languages = MEET_CAPTION_LANGUAGES.map(([value, name]) => `<li role="option" data-value="${value}">${h(name)}</li>`).join("");
	return pageShell({
		...state,
		platform: "google_meet",
		meetingId: code,
		title: `Meet - ${code}`,
		css: `#tiles{display:flex;flex-wrap:wrap;align-items:flex-start}.tile{display:inline-block;margin:4px;padding:4px;border:2px solid #444}
.tile video,.tile .avatar{display:block;width:160px;height:90px}.tile.main-stage{order:-1}.tile.main-stage video,.tile.main-stage .avatar{width:640px;height:360px}
.avatar{display:flex;align-items:center;justify-content:center;background:#3c4043}.avatar span{width:56px;height:56px;border-radius:50%;background:#5f6368;color:#fff;font-size:24px;display:flex;align-items:center;justify-content:center}.tile .Oaajhc,.tile .HX2H7,.tile .wEsLMd,.tile .OgVli{outline:3px solid #4c8}
.join-row{position:relative;display:inline-block}.covers-join{position:absolute;inset:-6px;z-index:5}#toolbar.idle{visibility:hidden}
.meet-scrim{position:fixed;inset:0;z-index:100;background:rgba(0,0,0,.55)}.meet-dialog{margin:15vh auto;width:440px;background:#fff;padding:16px}`,
		body: `
<div id="prejoin">
	<div class="preview"><video id="self-preview" autoplay muted playsinline></video>
		<div role="button" aria-label="${h(ui.effects)}" data-participant-id="effects-menu">${traps.has("effects_phantom_span") ? '<span class="notranslate">visual_effects</span>' : ""}</div></div>
	<div id="join-form">
		<h1>${h(ui.readyToJoin)}</h1>
		<input type="text" id="name" jsname="YPqjbf" aria-label="${h(ui.yourName)}" placeholder="${h(ui.yourName)}" autocomplete="off">
		<span class="join-row"><button id="join" jsname="Qx7uuf" disabled><span class="UywwFc-vQzf8d"></span></button>${traps.has("overlay_over_join") ? '<div class="covers-join"></div>' : ""}</span>
	</div>
	<div id="lobby" hidden><div id="lobby-title"></div><div id="lobby-detail"></div><button>${h(ui.returnHome)}</button></div>
</div>
<div id="call" hidden>
	<div id="tiles"></div>
	${captions}
	<div id="people-panel" hidden><div aria-label="Participants" role="list" id="people"></div></div>
	<div id="chat-panel" hidden><div id="chat-messages"></div>${chatInput}</div>
</div>
<div id="outcome" hidden><div class="${older ? "Q8aSuf" : "roSPhc"}"><h1 id="outcome-title"></h1></div><button>${h(ui.returnHome)}</button></div>
<div id="toolbar" role="region" aria-label="Call controls">
	<div role="button" id="mic" aria-label="${h(ui.turnOffMic)}" data-is-muted="false"></div>
	<div role="button" id="cam" aria-label="${h(ui.turnOffCam)}" data-is-muted="false"></div>
	<span id="in-call-controls" hidden>
		<button id="cc" aria-label="${h(ui.turnOnCaptions)}"></button>
		<button id="present" aria-label="${h(older ? ui.presentNow : ui.shareScreen)}"></button>
		<button id="people-button" aria-label="${h(ui.people)}"></button>
		<button id="chat-button" aria-label="${h(ui.chatWithEveryone)}"></button>
		<button id="more" jsname="NakZHc" aria-label="${h(ui.moreOptions)}"></button>
	</span>
	<button jsname="CQylAd" aria-label="${h(ui.leaveCall)}" id="leave"></button>
</div>
<ul id="more-menu" role="menu" hidden><li role="menuitem" id="settings-item"><i class="google-material-icons" aria-hidden="true">settings</i><span>${h(ui.settings)}</span></li></ul>
<div id="settings-scrim" class="meet-scrim" hidden><div role="dialog" aria-modal="true" aria-label="${h(ui.settings)}" class="meet-dialog">
	<div role="tablist"><button role="tab" jsname="z4Tpl" aria-label="${h(ui.captions)}">${h(ui.captions)}</button></div>
	<div role="combobox" id="language-select">English (United States)</div>
	<ul role="listbox" aria-label="${h(ui.meetingLanguage)}" id="language-list" hidden>${languages}</ul>
	<button id="settings-close" aria-label="${h(ui.closeDialog)}">×</button>
</div></div>`,
		skin: `
const TEXT = ${script(ui)};
const TRAP = ${script(MEET_TRAP_TEXTS)};
const TRAPS = new Set((document.documentElement.dataset.traps || "").split(" ").filter(Boolean));
const OLDER = document.documentElement.dataset.dom === "older";
const SPEAKING = ["Oaajhc", "HX2H7", "wEsLMd", "OgVli"];
const nameInput = $("#name");
const joinButton = $("#join");
const loadedAt = Date.now();
let scenario = null;
scenarioReady.then((s) => { scenario = s; });
let captionLanguage = "en-US";
let messageSeq = 0;
let lastPointerMove = 0;
// What the bot chose on the page (caption language, the consent prompt), for the meeting's record.
const report = (choice) =>
	fetch("/__sandbox/meetings/" + encodeURIComponent(document.documentElement.dataset.meetingId) + "/choices", {
		method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(choice),
	}).catch(() => {});
// rotated_caption_classes: Google renames its obfuscated classes; here every caption class is new on each load.
const rotated = new Map();
const C = (name) => {
	if (!TRAPS.has("rotated_caption_classes")) return name;
	if (!rotated.has(name)) rotated.set(name, "r" + Math.random().toString(36).slice(2, 8));
	return rotated.get(name);
};
// Modal dialogs as A finds them (div[aria-modal="true"][role="dialog"]); the page behind takes no click while one shows.
function meetDialog({ title, text, buttons }) {
	const scrim = el("div", { class: "meet-scrim notice" });
	const dialog = el("div", { role: "dialog", "aria-modal": "true", class: "meet-dialog" });
	dialog.append(el("h2", {}, title), el("p", {}, text));
	for (const b of buttons) {
		const button = el("button", b.attrs);
		button.append(el("span", {}, b.label));
		button.addEventListener("click", () => { scrim.remove(); b.onClick?.(); });
		dialog.append(button);
	}
	scrim.append(dialog);
	document.body.append(scrim);
	return scrim;
}
const toggle = (button, on, offLabel, onLabel) => {
	button.setAttribute("aria-label", on ? offLabel : onLabel);
	button.dataset.isMuted = String(!on);
};
// slow_device_toggles: devices still starting ignore a click (A confirms each toggle and tries up to five times).
const devicesReady = () => !TRAPS.has("slow_device_toggles") || Date.now() - loadedAt > 2000;
$("#mic").addEventListener("click", (e) => {
	if (!devicesReady()) return;
	const on = e.currentTarget.dataset.isMuted === "true";
	toggle(e.currentTarget, on, TEXT.turnOffMic, TEXT.turnOnMic);
	Sandbox.setMic(on);
});
$("#cam").addEventListener("click", (e) => {
	if (!devicesReady()) return;
	const on = e.currentTarget.dataset.isMuted === "true";
	toggle(e.currentTarget, on, TEXT.turnOffCam, TEXT.turnOnCam);
	Sandbox.setCamera(on);
});
// Join stays disabled until a name is typed; join_enabled_late: 2.5 s longer.
let enableLater = null;
nameInput.addEventListener("input", () => {
	clearTimeout(enableLater);
	const named = nameInput.value.trim() !== "";
	joinButton.disabled = !named || TRAPS.has("join_enabled_late");
	if (named && TRAPS.has("join_enabled_late")) enableLater = setTimeout(() => { joinButton.disabled = false; }, 2500);
});
// A changed layout: the join button says something no driver looks for.
function applyLayout(changed) {
	scenarioReady.then((s) => {
		joinButton.firstElementChild.textContent = changed ? "Request entry" : s.direct_join ? TEXT.joinNow : TEXT.askToJoin;
	});
}
// The one place a request to join leaves the page: checks on the browser that asks belong here.
function askToJoin(trigger) {
	if (TRAPS.has("problem_connecting")) return showScreen(TRAP.problemConnecting);
	Sandbox.ask({ name: nameInput.value.trim(), trigger });
}
joinButton.addEventListener("click", (e) => {
	joinButton.hidden = true;
	askToJoin(e);
});
$("#leave").addEventListener("click", () => Sandbox.leave());
$("#cc").addEventListener("click", (e) => {
	const on = e.currentTarget.getAttribute("aria-label") === TEXT.turnOnCaptions;
	e.currentTarget.setAttribute("aria-label", on ? TEXT.turnOffCaptions : TEXT.turnOnCaptions);
	$("#captions-wrap").hidden = !on;
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
// A select_language: More options -> Settings -> li[data-value] (the list need not be open to take a click).
$("#more").addEventListener("click", () => { $("#more-menu").hidden = !$("#more-menu").hidden; });
$("#settings-item").addEventListener("click", () => { $("#more-menu").hidden = true; $("#settings-scrim").hidden = false; });
$("#settings-close").addEventListener("click", () => { $("#settings-scrim").hidden = true; $("#language-list").hidden = true; });
$("#language-select").addEventListener("click", () => { $("#language-list").hidden = !$("#language-list").hidden; });
for (const option of document.querySelectorAll("#language-list li")) {
	option.addEventListener("click", () => {
		captionLanguage = option.dataset.value;
		$("#language-select").textContent = option.textContent;
		$("#language-list").hidden = true;
		report({ caption_language: captionLanguage });
	});
}
// Captions come out right only in the language set for them: another spoken language gives no word of the line.
const captionText = (text) => {
	const spoken = scenario && scenario.spoken_language;
	if (!spoken || captionLanguage.toLowerCase().split("-")[0] === spoken.toLowerCase()) return text;
	return text.split(/\\s+/).map(() => "…").join(" ");
};
// Presenting (Attendee google_meet_chromedriver_payload.js): "Share screen" asks the browser for
// the screen at once; the older page's "Present now" first offers what to present (Vexa
// googlemeet/selectors.ts); "Stop presenting" (its span's jsname V67aGc) ends it. A host who
// turned presenting off leaves the control disabled.
const presentButton = $("#present");
const olderMeet = document.documentElement.dataset.dom === "older";
const presentMenu = el("div", { role: "menu", hidden: "" });
for (const item of ["Your entire screen", "A window", "A tab"]) presentMenu.append(el("div", { role: "menuitem" }, item));
const stopPresenting = el("button", { hidden: "" });
stopPresenting.append(el("span", { class: "UywwFc-vQzf8d", jsname: "V67aGc" }, "Stop presenting"));
$("#in-call-controls").append(presentMenu, stopPresenting);
scenarioReady.then((s) => { presentButton.disabled = s.host_disabled_screen_share; });
const presentScreen = async () => {
	presentMenu.hidden = true;
	const stream = await navigator.mediaDevices.getDisplayMedia({ video: true, audio: true }).catch(() => null);
	if (!stream) return;
	stopPresenting.hidden = false;
	Sandbox.present(stream, () => { stopPresenting.hidden = true; });
};
presentButton.addEventListener("click", () => { if (olderMeet) presentMenu.hidden = false; else presentScreen(); });
presentMenu.addEventListener("click", (e) => { if (e.target.getAttribute("role") === "menuitem") presentScreen(); });
stopPresenting.addEventListener("click", () => Sandbox.stopPresenting());
// auto_hiding_toolbar: in the call the toolbar hides until the pointer moves (V moves the mouse before reading it).
document.addEventListener("mousemove", () => {
	lastPointerMove = Date.now();
	$("#toolbar").classList.remove("idle");
});
const idle = () => Sandbox.phase === "in_call" && Date.now() - lastPointerMove > 1500;
if (TRAPS.has("auto_hiding_toolbar")) setInterval(() => { if (idle()) $("#toolbar").classList.add("idle"); }, 200);
function showScreen(title) {
	for (const id of ["prejoin", "call", "toolbar", "more-menu", "settings-scrim"]) $("#" + id).hidden = true;
	for (const notice of document.querySelectorAll(".meet-scrim.notice")) notice.remove();
	$("#outcome").hidden = false;
	$("#outcome-title").textContent = title;
}
function showLobby() {
	$("#join-form").hidden = true;
	const [title, detail] = TRAPS.has("lobby_host_brings_you_in")
		? [TRAP.hostBringsYouIn, ""]
		: TRAPS.has("lobby_waiting_room")
			? [TRAP.waitingRoom, ""]
			: TRAPS.has("lobby_waiting_for_host")
				? [TRAP.waitingForHost, ""]
				: [TEXT.asking, TEXT.askingDetail];
	$("#lobby-title").textContent = title;
	$("#lobby-detail").textContent = detail;
	$("#lobby").hidden = false;
}
function enterCall() {
	$("#prejoin").hidden = true;
	$("#call").hidden = false;
	$("#in-call-controls").hidden = false;
	if (TRAPS.has("auto_hiding_toolbar") && idle()) $("#toolbar").classList.add("idle");
	scenarioReady.then((s) => {
		// A: a recorded call asks to confirm with its dialog's OK ("Join now").
		if (s.interruptions)
			meetDialog({
				title: TEXT.recorded,
				text: "",
				buttons: [
					{ label: TEXT.leaveMeeting, attrs: { "data-mdc-dialog-action": "cancel" }, onClick: () => Sandbox.leave() },
					{ label: TEXT.joinNow, attrs: { "data-mdc-dialog-action": "ok" } },
				],
			});
	});
	// gemini_consent: V #429, a consent gate no bot may answer; here someone else answers it after 4 s.
	if (TRAPS.has("gemini_consent")) {
		const gate = meetDialog({
			title: TEXT.notesConsent,
			text: TEXT.notesConsentDetail,
			buttons: [
				{ label: TEXT.noThanks, attrs: { "data-mdc-dialog-action": "cancel" }, onClick: () => report({ notes_consent: "declined" }) },
				{ label: TEXT.startNotes, attrs: { "data-mdc-dialog-action": "ok" }, onClick: () => report({ notes_consent: "accepted" }) },
			],
		});
		setTimeout(() => gate.remove(), 4000);
	}
	// junk_tiles: V gmeet-speakers.ts filters these names read from tiles (device ids, placeholders, host-control rows).
	if (TRAPS.has("junk_tiles"))
		for (const [id, name] of [["j1", "Google Participant (spaces/sandbox/devices/j1)"], ["j2", "spaces/sandbox/devices/j2"], ["j3", "Let participants send messages"]]) {
			const tile = el("div", { class: "tile", "data-participant-id": "spaces/sandbox/devices/" + id });
			tile.append(el("span", { class: "notranslate" }, name));
			$("#tiles").append(tile);
		}
}
// Each remote tile plays its participant's video in a <video> of its own (Meeting BaaS
// chrome_extension/src/shittyHtml/meet.ts findMainVideo takes the largest "video[autoplay]" as the
// speaker's; Vexa gmeet-capture.ts: one media element per participant), or their initials in a
// circle while their camera is off.
function cameraOrAvatar(p) {
	const video = p.camera ? Sandbox.cameraVideo(p.id) : null;
	if (video) return video;
	const avatar = el("div", { class: "avatar" });
	avatar.append(el("span", {}, p.initials));
	return avatar;
}
// Meet's Auto layout in a small call: the active speaker takes the main stage, the others sit
// beside it; before anyone has spoken, the first one in. (Its real classes are obfuscated and no
// peer names them: "main-stage" is the sandbox's own.)
function layOutStage() {
	const tiles = [...document.querySelectorAll("#tiles > [data-requested-participant-id]")].filter((t) => t.dataset.requestedParticipantId !== "self");
	const main = tiles.find((t) => t.dataset.requestedParticipantId === Sandbox.activeSpeaker) ?? tiles[0];
	for (const t of tiles) t.classList.toggle("main-stage", t === main);
}
Sandbox.start({
	mixedAudio: false,
	showPreview(stream) { $("#self-preview").srcObject = stream; },
	renderPhase(phase) {
		if (phase === "lobby") return showLobby();
		$("#lobby").hidden = true;
		if (phase === "in_call") return enterCall();
		const screens = {
			// denied_as_left: A reads "You left the meeting" while asking to join as a denial.
			denied: TRAPS.has("denied_as_left") ? TEXT.left : TEXT.denied,
			removed: TEXT.removed,
			ended: TEXT.ended,
			left: TEXT.left,
			not_found: TRAPS.has("not_found_expired") ? TRAP.codeExpired : TRAPS.has("not_found_code_doesnt_work") ? TRAP.codeDoesntWork : TEXT.notFound,
		};
		if (screens[phase]) showScreen(screens[phase]);
	},
	addParticipant(p) {
		const tile = el("div", { class: "tile", "data-participant-id": "spaces/sandbox/devices/" + p.id, "data-requested-participant-id": p.id });
		tile.append(el("div", { "data-audio-level": "0", class: "level" }));
		// V: the self marker sits on a child of the bot's tile.
		if (p.self) tile.append(el("div", { "data-self-name": p.name }));
		if (!p.self) tile.append(cameraOrAvatar(p));
		tile.append(el("span", { class: "notranslate" }, p.name));
		$("#tiles").append(tile);
		layOutStage();
		// self_view_named_you: the bot shows twice, its second view labelled "You" (V finds self by the tile's id).
		if (p.self && TRAPS.has("self_view_named_you")) {
			const view = el("div", { class: "tile", "data-participant-id": "spaces/sandbox/devices/" + p.id });
			view.append(el("span", { class: "notranslate" }, "You"));
			$("#tiles").append(view);
		}
		const item = el("div", { role: "listitem", "aria-label": p.name, "data-participant-id": p.id });
		item.append(el("span", { class: "zWGUib" }, p.name));
		if (p.self) item.append(el("span", { class: "NnTWjc" }, "(You)"));
		$("#people").append(item);
	},
	removeParticipant(p) {
		document.querySelectorAll('[data-requested-participant-id="' + p.id + '"], #people [data-participant-id="' + p.id + '"]').forEach((e) => e.remove());
		layOutStage();
	},
	setActiveSpeaker: layOutStage,
	setSpeaking(id, name, on) {
		const level = document.querySelector('[data-requested-participant-id="' + id + '"] .level');
		if (!level) return;
		level.className = "level" + (on ? " " + SPEAKING[Math.floor(Math.random() * SPEAKING.length)] : "");
		level.setAttribute("data-audio-level", on ? "0.6" : "0");
	},
	captionStart(id, name) {
		let entry;
		if (OLDER) {
			entry = el("div", { class: C("TBMuR") + " " + C("bj4p3b") });
			const photo = el("div");
			photo.append(el("img", { class: "KpxDtd r6DyN", alt: "" }));
			const text = el("div", { class: C("iTTPOb") + " " + C("VbkSUe") });
			entry.append(photo, el("div", { class: C("zs7s8d") + " " + C("jxFHg") }, name), text);
			entry.said = text.appendChild(el("span", { class: "CNusmb" }, ""));
		} else {
			entry = el("div", { class: C("nMcdL") + " " + C("bj4p3b") });
			const head = el("div", { class: C("adE6rb") });
			const label = el("div", { class: C("KcIKyf") + " " + C("jxFHg") });
			label.append(el("span", { class: C("NWpY1d") }, name));
			head.append(label);
			entry.said = el("div", { class: C("ygicle") + " " + C("VbkSUe") }, "");
			entry.append(head, entry.said);
		}
		$("#captions").append(entry);
		// Meet keeps only the last few lines on screen.
		while ($("#captions").children.length > 3) $("#captions").firstElementChild.remove();
		return entry;
	},
	captionUpdate(entry, text) { entry.said.textContent = captionText(text); },
	chatMessage(m) {
		const group = el("div", { class: "Ss4fHf" });
		const head = el("div", { class: "HNucUd" });
		head.append(el("div", { class: "poVWob" }, m.self ? "You" : m.sender), el("div", { class: "MuzmKe" }, new Date().toLocaleTimeString()));
		const id = "m" + ++messageSeq;
		const body = el("div", { "data-message-id": id });
		body.append(el("div", { class: "jO4O1" }, m.text));
		group.append(head, body);
		// chat_pin_button: "the pin button also has data-message-id" (a third-party Meet chat reader).
		if (TRAPS.has("chat_pin_button")) {
			const pin = el("button", { "data-message-id": id, "aria-label": "Pin message" });
			pin.append(el("i", { class: "google-symbols", "aria-hidden": "true" }, "keep"));
			group.append(pin);
		}
		$("#chat-messages").append(group);
	},
});
`,
	});
}
