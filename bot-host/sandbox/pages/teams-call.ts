/**
 * The in-call half of the sandbox Teams page's script (teams.ts holds the page and the pre-join
 * half): the calling controls and More menu, tiles with their voice-level outline, captions in the
 * guest's, the organiser's or the older layout, chat, the roster, the outcome screens and the audio.
 * Runs in the page after teams.ts's script, sharing its names (TX, OLDER, TRAPS, showRetry).
 */
export const TEAMS_CALL_SKIN = `
const media = { mic: true, camera: true };
// The open mic reads \`mic-volume-renderer\` in today's builds (third-party notes, 2026-09), \`mic\` in older ones.
const syncCallButtons = () => {
	$("#microphone-button").dataset.state = media.mic ? (OLDER ? "mic" : "mic-volume-renderer") : "mic-off";
	$("#microphone-button").setAttribute("aria-label", media.mic ? "Mute" : "Unmute");
	$("#video-button").dataset.state = media.camera ? "call-video" : "call-video-off";
	$("#video-button").setAttribute("aria-label", media.camera ? "Turn camera off" : "Turn camera on");
};
$("#microphone-button").addEventListener("click", () => { media.mic = !media.mic; Sandbox.setMic(media.mic); syncCallButtons(); });
$("#video-button").addEventListener("click", () => { media.camera = !media.camera; Sandbox.setCamera(media.camera); syncCallButtons(); });
$("#hangup-button").addEventListener("click", () => Sandbox.leave());
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

// More: a guest's Captions item is a toggle (V); the organiser's goes through Language and speech.
let captionsOn = false;
const closeMenus = () => { $("#more-menu").hidden = true; $("#language-menu").hidden = true; };
const setCaptions = (on) => {
	captionsOn = on;
	Sandbox.setCaptions(on);
	$("#closed-captions-button").setAttribute("aria-checked", String(on));
	if (OLDER && $("#captions-item")) $("#captions-item").textContent = on ? TX.captions.off : TX.captions.older;
	closeMenus();
};
$("#callingButtons-showMoreBtn").addEventListener("click", () => {
	const open = $("#more-menu").hidden;
	closeMenus();
	$("#more-menu").hidden = !open;
});
$("#captions-item")?.addEventListener("click", () => setCaptions(!captionsOn));
$("#LanguageSpeechMenuControl-id")?.addEventListener("click", () => { $("#more-menu").hidden = true; $("#language-menu").hidden = false; });
$("#closed-captions-button").addEventListener("click", () => setCaptions(!captionsOn));
document.addEventListener("keydown", (e) => { if (e.key === "Escape") closeMenus(); });

// The roster lists people only while its panel is open (V reads it when it is; it never opens it).
const people = new Map();
let rosterOpen = false;
const renderRoster = () => {
	$("#roster-list").replaceChildren();
	if (!rosterOpen) return;
	for (const p of people.values()) {
		const row = el("div", { role: "treeitem", "data-tid": "roster-participant", "aria-label": p.name });
		row.append(el("span", { title: p.name }, p.name));
		if (p.self) row.append(el("span", {}, "(Guest)"));
		$("#roster-list").append(row);
	}
};
$("#roster-button").addEventListener("click", () => { rosterOpen = !rosterOpen; $("#roster-panel").hidden = !rosterOpen; renderRoster(); });

// Chat exists only while its panel is open; idle_chat: an idle page gets no new messages until the
// mouse moves (A fires a mousemove now and then because Teams "stops receiving chat messages").
const chat = [];
const held = [];
let chatOpen = false;
let activeAt = Date.now();
const renderChat = () => {
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
document.addEventListener("mousemove", () => {
	activeAt = Date.now();
	if (held.length === 0) return;
	chat.push(...held.splice(0));
	renderChat();
});
$("#chat-button").addEventListener("click", () => { chatOpen = !chatOpen; $("#chat-panel").hidden = !chatOpen; renderChat(); });
$('#chat-panel [contenteditable]').addEventListener("keydown", (e) => {
	if (e.key !== "Enter") return;
	e.preventDefault();
	const text = e.currentTarget.textContent.trim();
	e.currentTarget.textContent = "";
	if (text) Sandbox.sendChat(text);
});

// Captions (V msteams-captions.ts): a guest's lines are author and text atoms in a plain row; the
// organiser's nest in items-renderer > ChatMessageCompact; the older page used Fluent chat items.
const captionList = () => {
	const existing = $("#caption-list");
	if (existing) return existing;
	let list;
	let wrapper;
	if (OLDER) {
		wrapper = el("div", { "data-tid": "closed-captions-renderer" });
		list = el("div", { class: "ui-chat" });
		wrapper.append(list);
	} else {
		wrapper = el("div", { "data-tid": "closed-caption-renderer-wrapper" });
		const windowWrapper = el("div", { "data-tid": "closed-caption-v2-window-wrapper" });
		const content = el("div", { "data-tid": "closed-caption-v2-virtual-list-content" });
		list = TRAPS.has("organizer_view") ? el("div", { "data-tid": "closed-captions-v2-items-renderer" }) : content;
		if (list !== content) content.append(list);
		windowWrapper.append(content);
		wrapper.append(windowWrapper);
	}
	list.id = "caption-list";
	// Mounts only once someone has spoken.
	$("#captions-host").append(wrapper);
	return list;
};
const captionRow = (name) => {
	if (OLDER) {
		const item = el("div", { class: "ui-chat__item" });
		const message = el("div", { class: "ui-chat__message" });
		message.append(el("span", { class: "ui-chat__message__author" }, name), el("span", { class: "ui-chat__message__content fui-StyledText" }, ""));
		item.append(message);
		return item;
	}
	const atoms = [el("span", { "data-tid": "author" }, name), el("span", { "data-tid": "closed-caption-text" }, "")];
	if (!TRAPS.has("organizer_view")) {
		const row = el("div");
		row.append(...atoms);
		return row;
	}
	const message = el("div", { class: "fui-ChatMessageCompact" });
	const body = el("div", { class: "fui-ChatMessageCompact__body" });
	body.append(...atoms);
	message.append(body);
	return message;
};

const tileOf = (id) => $('[data-stream-type][data-participant="' + id + '"]');
const RETRY = { denied: TX.denied, removed: OLDER ? TX.removed.older : TX.removed.newer, ended: TX.ended, left: TX.left };
Sandbox.start({
	mixedAudio: true,
	peerAudio: true,
	// V teams-main-audio.ts: the server mix's track id starts with \`mainAudio\` (A: its stream id holds it),
	// and a redundant track carries the same audio again; the sandbox marks that copy with a quiet tone.
	mainAudio: { stream: "mainAudio-stream", track: "mainAudio-1" },
	redundantAudio: { toneHz: REDUNDANT_TONE_HZ },
	// The lobby text stays up, but the pre-join "Join now" is enabled again.
	lobbyDropped() { joinButton.disabled = false; },
	showPreview(stream) { $("#prejoin-video").srcObject = stream; },
	renderPhase(phase) {
		$("#lobby").hidden = phase !== "lobby";
		if (phase === "in_call") {
			$("#prejoin").hidden = true;
			$("#call").hidden = false;
			// unnamed_stream: a stream tile whose data-tid is a machine id, not a name (V's \`video-stream-2\`).
			if (TRAPS.has("unnamed_stream")) $("#stage").append(el("div", { "data-stream-type": "Video", "data-tid": "video-stream-2" }));
		} else if (phase === "not_found") {
			$("#launcher").hidden = true;
			$("#error-screen").hidden = false;
		} else if (phase === "ended" && TRAPS.has("encryption_error")) {
			showRetry("", "");
			$("#retry").hidden = true;
			$("#e2ee").hidden = false;
		} else if (RETRY[phase]) showRetry(RETRY[phase], "");
	},
	addParticipant(p) {
		people.set(p.id, p);
		renderRoster();
		const tile = el("div", { "data-stream-type": "Video", "data-tid": p.name, "data-participant": p.id });
		// The outline is in every tile (V, B); only the speaker's lights up. The gallery shows every
		// camera in its tile (A teams_chromedriver_payload.js receives each as a video track), and the
		// initials in Fluent's round avatar for a camera that is off.
		const video = p.self ? null : p.camera ? Sandbox.cameraVideo(p.id) : null;
		const avatar = p.self || video ? null : el("span", { class: "fui-Avatar", "aria-hidden": "true" }, p.initials);
		tile.append(el("div", { "data-tid": "voice-level-stream-outline" }), ...[video, avatar].filter(Boolean), el("span", {}, p.name));
		$("#stage").append(tile);
	},
	removeParticipant(p) {
		people.delete(p.id);
		renderRoster();
		tileOf(p.id)?.remove();
	},
	// Speaking: B's lit outline (its ::before opaque and blue) today; \`vdi-frame-occlusion\` on the outline before (B, V).
	setSpeaking(id, name, on) {
		tileOf(id)?.querySelector('[data-tid="voice-level-stream-outline"]')?.classList.toggle(OLDER ? "vdi-frame-occlusion" : "fui-r1lk4z9a", on);
	},
	captionStart(id, name) {
		const list = captionList();
		const row = captionRow(name);
		list.append(row);
		// The list is virtualised: only the most recent entries stay mounted.
		while (list.children.length > 5) list.firstElementChild.remove();
		return row;
	},
	captionUpdate(row, text) { row.querySelector('[data-tid="closed-caption-text"], .ui-chat__message__content').textContent = text; },
	chatMessage(m) {
		const message = { sender: m.self ? "You" : m.sender, text: m.text };
		if (!m.self && TRAPS.has("idle_chat") && Date.now() - activeAt > 3000) held.push(message);
		else chat.push(message);
		renderChat();
	},
});
`;
