/** Zoom web client driver. Selectors and texts as the Zoom web client shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { clickIfVisible, dismissAny, findByText, findVisible, type ProbeTable, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const ZOOM = {
	cookieAccept: ["#onetrust-accept-btn-handler"],
	nameInput: ["#input-for-name", "#inputname"],
	passcodeInput: ['input[placeholder*="passcode" i]', "#input-for-pwd"],
	audioMute: ['#preview-audio-control-button[aria-label="Mute"]'],
	videoStop: ['#preview-video-control-button[aria-label="Stop Video"]'],
	joinButton: ["button.preview-join-button", "#joinBtn"],
	// The permission explainer (can come twice) and "Got it" tooltips; never a bare "OK", which ends screens use.
	popups: { selectors: [], texts: ["Allow", "Got it"] },
	subtitles: ["#live-transcription-subtitle", ".live-transcription-subtitle__box"],
	moreControls: ["div[aria-label='More meeting control ']", "button[aria-label='More meeting control ']"],
	captionsMenu: ["a[aria-label='Captions']"],
	showCaptions: ["Show Captions"],
	participantsButton: ['button[aria-label*="participants list"]'],
	participantsPane: [".participants-ul"],
	chatButton: ['button[aria-label*="chat panel"]'],
	chatInput: ['.chat-rtf-box__editor-outer [contenteditable="true"]'],
	chatSend: ['button[aria-label="send"]'],
	footerMute: ['button.join-audio-container__btn[aria-label="mute my microphone"]'],
	footerUnmute: ['button.join-audio-container__btn[aria-label="unmute my microphone"]'],
	footerStopVideo: ['button.send-video-container__btn[aria-label="stop my video"]'],
	footerStartVideo: ['button.send-video-container__btn[aria-label="start my video"]'],
	leave: ['button[aria-label="Leave"]'],
	// Empty aria-label; pressing Enter on it cancels, so it must be clicked.
	leaveConfirm: ["button.leave-meeting-options__btn--danger"],
	probe: {
		states: [
			// Shown both for a removal and for a denial from the waiting room; the session tells them apart.
			{ state: "removed", texts: ["You have been removed"] },
			{ state: "ended", texts: ["This meeting has been ended by host"] },
			{ state: "not_found", texts: ["This meeting link is invalid (3,001)"] },
			{ state: "bot_wall", texts: ["We detected you may be a bot"] },
			{ state: "sign_in_required", urls: ["zoom.us/signin"], texts: ["Only authenticated users can join"] },
			{ state: "left", texts: ["You have left the meeting"] },
			{
				state: "lobby",
				texts: [
					"Please wait, the meeting host will let you in soon.",
					"Waiting for the host to start this meeting",
					"Host has joined. We've let them know you're here",
				],
			},
			{ state: "in_call", selectors: ['.footer button[aria-label="Leave"]', "button.join-audio-container__btn"] },
			{ state: "prejoin", selectors: ["#input-for-name", "#inputname"] },
		],
		captions: { entry: ".live-transcription-subtitle__item", speaker: null, text: ".live-transcription-subtitle__item" },
		speakers: {
			tile: ".speaker-active-container__video-frame, .speaker-bar-container__video-frame",
			speaking: [".speaker-active-container__video-frame", ".speaker-bar-container__video-frame--active"],
			name: { selector: ".video-avatar__avatar-footer > span" },
		},
		participants: {
			item: ".participants-ul > li",
			name: { selector: ".participants-item__display-name" },
			self: [".participants-item__name-label"],
			visibleOnly: false,
		},
		chat: {
			message: ".new-chat-message__container",
			text: ".new-chat-message__text-box",
			sender: { selector: ".chat-item__sender" },
			inheritSender: true,
		},
	} satisfies ProbeTable,
};

export const zoom: MeetingDriver = {
	platform: "zoom",

	joinUrl(meetingUrl, passcode) {
		const url = new URL(meetingUrl);
		// events.zoom.us and white-label portals are opened as given.
		if (!url.hostname.endsWith("zoom.us") || url.hostname === "events.zoom.us") return meetingUrl;
		const parts = url.pathname.split("/").filter(Boolean);
		const id =
			parts[0] === "wc" ? (parts[1] === "join" ? parts[2] : parts[1]) : ["j", "s", "w"].includes(parts[0] ?? "") ? parts[1] : undefined;
		if (!id) return meetingUrl;
		const target = new URL(`https://app.zoom.us/wc/${id}/join`);
		const pwd = url.searchParams.get("pwd") ?? passcode;
		if (pwd) target.searchParams.set("pwd", pwd);
		return target.toString();
	},

	async join(page: Page, { botName, passcode, step = () => {}, again = false }: JoinOptions) {
		const name = await waitVisible(page, ZOOM.nameInput, 20_000);
		if (!name) throw new LayoutChanged("Zoom pre-join screen did not show a name field");
		if (await clickIfVisible(page, ZOOM.cookieAccept)) step("accepted the cookie banner");
		// Real key presses: a value set by script leaves Join disabled.
		await typeInto(name, botName);
		step("typed the bot's name");
		const pass = await findVisible(page, ZOOM.passcodeInput);
		if (pass) {
			if (!passcode) throw new Error("Zoom asks for a passcode and none was given");
			await typeInto(pass, passcode);
			step("typed the passcode");
		}
		if (await clickIfVisible(page, ZOOM.audioMute)) step("turned the microphone off");
		if (await clickIfVisible(page, ZOOM.videoStop)) step("turned the camera off");
		const join = await waitVisible(page, ZOOM.joinButton, again ? 500 : 5_000);
		if (!join) throw new LayoutChanged("Zoom join button not found (preview-join-button)");
		if (await join.evaluate((b) => b.classList.contains("disabled"))) throw new Error("Zoom join button stayed disabled");
		await join.click();
		step("clicked Join");
	},

	snapshot: (page, botName) => readSnapshot(page, ZOOM.probe, botName),

	dismissInterruptions: (page) => dismissAny(page, ZOOM.popups),

	async prepareCall(page) {
		while (await dismissAny(page, ZOOM.popups)) await new Promise((r) => setTimeout(r, 400));
		if (!(await findVisible(page, ZOOM.subtitles)) && (await clickIfVisible(page, ZOOM.moreControls))) {
			if (await clickIfVisible(page, ZOOM.captionsMenu)) await (await findByText(page, "a, [role=menuitem]", ZOOM.showCaptions))?.click();
		}
		if (!(await findVisible(page, ZOOM.participantsPane))) await clickIfVisible(page, ZOOM.participantsButton);
		if (!(await findVisible(page, ZOOM.chatInput))) await clickIfVisible(page, ZOOM.chatButton);
		const ready = await Promise.all([ZOOM.subtitles, ZOOM.participantsPane, ZOOM.chatInput].map((s) => findVisible(page, s)));
		return ready.every((handle) => handle !== null);
	},

	async sendChat(page, text) {
		let input = await findVisible(page, ZOOM.chatInput);
		if (!input) {
			await clickIfVisible(page, ZOOM.chatButton);
			input = await waitVisible(page, ZOOM.chatInput, 3_000);
		}
		if (!input) throw new Error("Zoom chat input not found");
		await input.click();
		await input.type(text);
		if (!(await clickIfVisible(page, ZOOM.chatSend))) await input.press("Enter");
	},

	async setMicrophone(page, on) {
		await clickIfVisible(page, on ? ZOOM.footerUnmute : ZOOM.footerMute);
	},

	async setCamera(page, on) {
		await clickIfVisible(page, on ? ZOOM.footerStartVideo : ZOOM.footerStopVideo);
	},

	async leave(page) {
		if (!(await clickIfVisible(page, ZOOM.leave))) return;
		// The waiting room's Leave needs no confirmation; the call's does.
		const confirm = await waitVisible(page, ZOOM.leaveConfirm, 1_000);
		await confirm?.click();
	},
};
