/**
 * Sandbox Teams web (teams.microsoft.com/meet/<id>?p=<passcode>), as the maintained peers know the
 * real page (V = Vexa, A = Attendee, S = ScreenApp, B = Meeting BaaS; texts and sources in
 * teams-texts.ts), never as our driver reads it. The page's language, generation (`dom_version`)
 * and traps (traps.ts TEAMS_TRAPS) come from the scenario; docs/sandbox.md#teams-web lists them.
 * Always there, as on the real page: the "Continue on this browser" launcher; the disabled
 * "Join now" left in the DOM during the lobby; the voice-level outline in every tile, lit only
 * for the speaker; captions that mount only after speech, change in place and keep the last few;
 * chat that exists only while its panel is open; and the meeting audio as the server mix
 * (`mainAudio`) plus a redundant copy of it.
 */

import { escapeHtml as h, type MeetingPageState, pageShell } from "./shell.ts";
import { TEAMS_CALL_SKIN } from "./teams-call.ts";
import { TEAMS_PAGE_TEXTS } from "./teams-texts.ts";

/** The marker tone on the redundant audio track (the sandbox's own, so a test can hear which track a bot kept). */
export const TEAMS_REDUNDANT_TONE_HZ = 5_000;

const CSS = `[data-stream-type]{position:relative;display:inline-block;vertical-align:top;width:320px;height:180px;margin:4px;background:#333;color:#fff}
[data-stream-type] video{display:block;width:100%;height:100%}[data-stream-type]>span{position:absolute;left:6px;bottom:4px}
.fui-Avatar{position:absolute;inset:0;margin:auto;width:64px;height:64px;border-radius:50%;background:#5b5fc7;display:flex;align-items:center;justify-content:center;font-size:24px}
[data-tid="voice-level-stream-outline"]{position:absolute;inset:0;pointer-events:none;z-index:1}
[data-tid="voice-level-stream-outline"]::before{content:"";position:absolute;inset:0;border:3px solid rgb(91,95,199);opacity:0}
[data-tid="voice-level-stream-outline"].fui-r1lk4z9a::before{opacity:1}
.join-overlay{position:absolute;inset:-6px;z-index:5;background:rgba(255,255,255,.02);font-size:10px}`;

export function teamsPage(meetingId: string, state: MeetingPageState = {}): string {
	const tx = TEAMS_PAGE_TEXTS[state.language ?? "en"];
	const older = state.dom === "older";
	const traps = new Set(state.traps ?? []);
	// S: the launcher by aria-label ("Join meeting from this browser") or by text; its other forms with `launcher_variant`.
	const launcher = traps.has("launcher_variant")
		? `<button aria-label="Join on this browser">Join from browser</button>`
		: older
			? `<button>${h(tx.continueInBrowser)}</button>`
			: `<button aria-label="${h(tx.continueInBrowserLabel)}">${h(tx.continueInBrowser)}</button>`;
	// A reads a switch by `aria-checked` or `checked`: B's older page has `div[role=switch]`, S's selectors a native input.
	const toggle = (tid: string, label: string) =>
		older
			? `<div role="switch" data-tid="${tid}" aria-checked="true" aria-label="${h(label)}"></div>`
			: `<label><input type="checkbox" role="switch" data-tid="${tid}" title="${h(label)}" checked> ${h(label)}</label>`;
	// A generic overlay over Join (no peer names one on Teams; B quotes this tooltip's text).
	const overlay = traps.has("join_overlay") ? `<div role="tooltip" class="join-overlay">${h(tx.cameraOffTooltip)}</div>` : "";
	// A: the chat box by aria-label today, by placeholder before.
	const chatInput = older
		? `<div data-tid="ckeditor" contenteditable="true" role="textbox" placeholder="${h(tx.typeAMessage)}"></div>`
		: `<div data-tid="ckeditor" contenteditable="true" role="textbox" aria-label="${h(tx.typeAMessage)}"></div>`;
	// V: a guest turns captions on with More → Captions; an organiser with More → Language and speech → live captions (A: by id).
	const menu = traps.has("organizer_view")
		? `<div role="menuitem" id="LanguageSpeechMenuControl-id" aria-haspopup="menu">${h(tx.languageAndSpeech)}</div>`
		: `<div role="menuitem" id="captions-item">${h(older ? tx.captions.older : tx.captions.newer)}</div>`;
	const orgSignIn = state.signInRequired === true;
	return pageShell({
		...state,
		platform: "teams",
		meetingId,
		title: "Microsoft Teams",
		css: CSS,
		body: `
<div id="error-screen" hidden><h1 id="error-text">${h(tx.notFound)}</h1></div>
<div id="sign-in-screen"${orgSignIn ? "" : " hidden"}><p>${h(tx.orgSignIn)}</p><button>Sign in</button></div>
<div id="launcher"${orgSignIn ? " hidden" : ""}><h1>${h(tx.launcherTitle)}</h1>${launcher}<button>${h(tx.openApp)}</button></div>
<div id="prejoin" hidden>
	<video id="prejoin-video" autoplay muted playsinline></video>
	<input data-tid="prejoin-display-name-input" placeholder="${h(tx.namePlaceholder)}" autocomplete="off">
	<input data-tid="prejoin-passcode-input" placeholder="Meeting passcode" hidden>
	${toggle("toggle-video", tx.camera)} ${toggle("toggle-mute", tx.microphone)}
	<label><input type="radio" name="audio" checked> ${h(tx.computerAudio)}</label>
	<span style="position:relative;display:inline-block"><button data-tid="prejoin-join-button" disabled>${h(tx.joinNow)}</button>${overlay}</span>
	<div id="lobby" hidden><span>${h(older ? tx.lobby.older : tx.lobby.newer)}</span><button data-tid="prejoin-cancel-button">${h(tx.cancel)}</button></div>
</div>
<div id="call" hidden>
	<div id="stage"></div>
	<div id="captions-host"></div>
	<div id="roster-panel" hidden><div data-tid="roster"><div role="tree" aria-label="${h(tx.people)}" id="roster-list"></div></div></div>
	<div id="chat-panel" hidden><div data-tid="chat-pane-list" role="log" id="chat-list"></div>${chatInput}</div>
	<div id="calling-controls" role="toolbar">
		<button id="roster-button" aria-label="${h(tx.people)}">${h(tx.people)}</button>
		<button id="chat-button" aria-label="${h(tx.chat)}">${h(tx.chat)}</button>
		<button id="callingButtons-showMoreBtn" aria-label="${h(tx.more)}">${h(tx.more)}</button>
		<div role="menu" id="more-menu" hidden>${menu}</div>
		<div role="menu" id="language-menu" hidden><div role="menuitemcheckbox" id="closed-captions-button" aria-checked="false">${h(tx.showLiveCaptions)}</div></div>
		<button id="microphone-button" aria-label="Mute">Mic</button>
		<button id="video-button" aria-label="Turn camera off">Camera</button>
		<button id="hangup-button" data-tid="hangup-main-btn" data-inp="hangup-button" aria-label="${h(tx.leave)}">${h(tx.leave)}</button>
	</div>
</div>
<div data-tid="calling-retry-screen" id="retry" hidden><h1 id="calling-retry-screen-title"></h1><p id="calling-retry-screen-description"></p>
	<button data-tid="calling-retry-rejoinbutton">${h(tx.rejoin)}</button><button data-tid="calling-retry-cancelbutton">${h(tx.dismiss)}</button></div>
<div data-tid="calling-e2ee-end-screen" id="e2ee" hidden><h1>${h(tx.encryption)}</h1></div>`,
		skin: `
const TX = ${JSON.stringify(tx).replace(/</g, "\\u003c")};
const OLDER = ${older};
const TRAPS = new Set(document.documentElement.dataset.traps.split(" ").filter(Boolean));
const REDUNDANT_TONE_HZ = ${TEAMS_REDUNDANT_TONE_HZ};
${TEAMS_PREJOIN_SKIN}
${TEAMS_CALL_SKIN}`,
	});
}

/** The launcher, the pre-join form and the lobby. */
const TEAMS_PREJOIN_SKIN = `
const nameInput = $('[data-tid="prejoin-display-name-input"]');
const passInput = $('[data-tid="prejoin-passcode-input"]');
const joinButton = $('[data-tid="prejoin-join-button"]');
const switches = { mic: $('[data-tid="toggle-mute"]'), camera: $('[data-tid="toggle-video"]') };
const params = new URLSearchParams(location.search);
let scenario = null;
scenarioReady.then((s) => {
	scenario = s;
	if (s.passcode !== null && params.get("p") !== s.passcode) passInput.hidden = false;
});
$("#launcher button").addEventListener("click", () => { $("#launcher").hidden = true; $("#prejoin").hidden = false; });
// A changed layout: the join button carries a data-tid the driver does not know.
function applyLayout(changed) {
	joinButton.setAttribute("data-tid", changed ? "prejoin-join-btn-v2" : "prejoin-join-button");
}
const switchOn = (e) => (OLDER ? e.getAttribute("aria-checked") === "true" : e.checked);
const setSwitch = (e, on) => (OLDER ? e.setAttribute("aria-checked", String(on)) : (e.checked = on));
for (const [key, set] of [["mic", (on) => Sandbox.setMic(on)], ["camera", (on) => Sandbox.setCamera(on)]]) {
	const e = switches[key];
	if (OLDER) e.addEventListener("click", () => { setSwitch(e, !switchOn(e)); set(switchOn(e)); });
	else e.addEventListener("change", () => set(switchOn(e)));
}
// join_enabled_late: Join now enables 3 s after the name is first typed (devices still starting).
let enabling = null;
nameInput.addEventListener("input", () => {
	const named = () => nameInput.value.trim() !== "";
	if (!named() || !TRAPS.has("join_enabled_late")) return void (joinButton.disabled = !named());
	enabling ??= setTimeout(() => {
		if (Sandbox.phase === "prejoin") joinButton.disabled = !named();
	}, 3000);
});
// The light flow's prompt once Join now is clicked with camera and mic off (V #467, msteams/modals.ts):
// answering it sends nothing, Join now stays, and the next click joins. av_prompt_late: it comes only
// after a device check (V polls for it for seconds after the click).
let promptAnswered = false;
let connectionFailed = false;
joinButton.addEventListener("click", () => {
	if (joinButton.disabled) return;
	media.mic = switchOn(switches.mic);
	media.camera = switchOn(switches.camera);
	syncCallButtons();
	if (TRAPS.has("couldnt_connect") && !connectionFailed) {
		connectionFailed = true;
		return showRetry(TX.couldNotConnect, "");
	}
	const prompt = !promptAnswered && !media.mic && !media.camera && (scenario.interruptions || TRAPS.has("av_prompt_late"));
	if (!prompt) {
		joinButton.disabled = true;
		return Sandbox.ask({ name: nameInput.value.trim(), passcode: passInput.hidden ? params.get("p") : passInput.value });
	}
	const late = TRAPS.has("av_prompt_late");
	joinButton.disabled = late;
	setTimeout(() => {
		joinButton.disabled = false;
		popup({ text: TX.avPrompt, button: TX.continueWithoutMedia, buttonAttrs: { "aria-label": TX.continueWithoutMedia }, onClose: () => { promptAnswered = true; } });
	}, late ? 1500 : 0);
});
$('[data-tid="prejoin-cancel-button"]').addEventListener("click", () => Sandbox.leave());
// "We couldn't connect you" (A retries): Rejoin opens a fresh pre-join form, media back on (an S fork re-fills it).
$('[data-tid="calling-retry-rejoinbutton"]').addEventListener("click", () => {
	if (Sandbox.phase !== "prejoin") return;
	$("#retry").hidden = true;
	$("#prejoin").hidden = false;
	nameInput.value = "";
	enabling = null;
	joinButton.disabled = true;
	for (const e of Object.values(switches)) setSwitch(e, true);
	Sandbox.setMic(true);
	Sandbox.setCamera(true);
});
function showRetry(title, description) {
	for (const id of ["launcher", "prejoin", "call", "e2ee"]) $("#" + id).hidden = true;
	$("#retry").hidden = false;
	$("#calling-retry-screen-title").textContent = title;
	$("#calling-retry-screen-description").textContent = description;
}
`;
