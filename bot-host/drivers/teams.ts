/** Microsoft Teams web driver. Selectors and texts as Teams shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { clickIfVisible, dismissAny, findByText, findVisible, type ProbeTable, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const TEAMS = {
	continueInBrowser: ["Continue on this browser"],
	nameInput: ['[data-tid="prejoin-display-name-input"]'],
	passcodeInput: ['[data-tid="prejoin-passcode-input"]', 'input[placeholder*="passcode" i]'],
	micOn: ['[data-tid="toggle-mute"][aria-checked="true"]'],
	cameraOn: ['[data-tid="toggle-video"][aria-checked="true"]'],
	joinButton: ['[data-tid="prejoin-join-button"]'],
	// Disabled while the lobby request stands; enabled again means the lobby connection dropped.
	joinButtonEnabled: ['[data-tid="prejoin-join-button"]:not([disabled])'],
	// The audio/video prompt can show before or after the Join click.
	popups: { selectors: [], texts: ["Continue without audio or video"] },
	moreButton: ["#callingButtons-showMoreBtn"],
	captionsItem: ['[role="menuitem"][aria-label="Captions"]', '[role="menuitem"]'],
	chatButton: ["button#chat-button"],
	chatInput: ['[placeholder="Type a message"]'],
	micMuted: ['#microphone-button[data-state="mic-off"]'],
	micLive: ['#microphone-button[data-state="mic"]'],
	cameraOff: ['#video-button[data-state="call-video-off"]'],
	cameraLive: ['#video-button[data-state="call-video"]'],
	leave: ["#hangup-button", 'button[data-tid="hangup-main-btn"]', '[data-inp="hangup-button"]', 'button[aria-label="Leave"]'],
	lobbyCancel: ['[data-tid="prejoin-cancel-button"]'],
	probe: {
		states: [
			{ state: "removed", texts: ["You've been removed from this meeting"] },
			{ state: "denied", texts: ["Sorry, but you were denied", "Your request to join was declined"] },
			{ state: "ended", texts: ["The meeting has ended", "This meeting has ended"], selectors: ['[data-tid="calling-e2ee-end-screen"]'] },
			{ state: "not_found", texts: ["This meeting link is invalid"] },
			{ state: "bot_wall", texts: ["Verify you're a real person"] },
			{ state: "sign_in_required", urls: ["login.microsoftonline.com/"] },
			{ state: "left", texts: ["You left the meeting"] },
			{
				state: "lobby",
				texts: ["Someone will let you in soon", "Someone will let you in shortly", "You're in the lobby", "Waiting to be admitted"],
			},
			{
				state: "in_call",
				selectors: ["#hangup-button", 'button[data-tid="hangup-main-btn"]', "#callingButtons-showMoreBtn"],
			},
			{ state: "prejoin", selectors: ['[data-tid="prejoin-display-name-input"]'], texts: ["Continue on this browser"] },
		],
		captions: {
			entry: '[data-tid="closed-caption-renderer-wrapper"] .ui-chat__item',
			speaker: { selector: '[data-tid="author"]' },
			text: '[data-tid="closed-caption-text"]',
		},
		speakers: {
			tile: "[data-stream-type][data-tid]",
			speaking: ['[data-tid="voice-level-stream-outline"]'],
			name: { attribute: "data-tid" },
		},
		participants: { item: "[data-stream-type][data-tid]", name: { attribute: "data-tid" }, self: [], visibleOnly: false },
		chat: {
			message: '[data-tid="chat-pane-message"]',
			text: '[data-tid="messageBodyContent"]',
			sender: { selector: '[data-tid="message-author-name"]' },
			inheritSender: true,
		},
	} satisfies ProbeTable,
};

export const teams: MeetingDriver = {
	platform: "teams",

	joinUrl(meetingUrl, passcode) {
		const url = new URL(meetingUrl);
		if (passcode && url.pathname.startsWith("/meet/") && !url.searchParams.has("p")) url.searchParams.set("p", passcode);
		return url.toString();
	},

	async join(page: Page, { botName, passcode, step = () => {}, again = false }: JoinOptions) {
		const deadline = Date.now() + 20_000;
		let name = await findVisible(page, TEAMS.nameInput);
		while (!name && Date.now() < deadline) {
			const launcher = await findByText(page, "button", TEAMS.continueInBrowser);
			if (launcher) {
				await launcher.click();
				step("clicked Continue on this browser");
			}
			name = await waitVisible(page, TEAMS.nameInput, 500);
		}
		if (!name) throw new LayoutChanged("Teams pre-join screen did not show a name field");
		await typeInto(name, botName);
		step("typed the bot's name");
		const pass = await findVisible(page, TEAMS.passcodeInput);
		if (pass) {
			if (!passcode) throw new Error("Teams asks for a passcode and none was given");
			await typeInto(pass, passcode);
			step("typed the passcode");
		}
		if (await clickIfVisible(page, TEAMS.micOn)) step("turned the microphone off");
		if (await clickIfVisible(page, TEAMS.cameraOn)) step("turned the camera off");
		await dismissAny(page, TEAMS.popups);
		const join = await waitVisible(page, TEAMS.joinButton, again ? 500 : 5_000);
		if (!join) throw new LayoutChanged("Teams join button not found (prejoin-join-button)");
		await join.click();
		step("clicked Join now");
		if (await dismissAny(page, TEAMS.popups)) step("dismissed a pop-up");
	},

	dismissInterruptions: (page) => dismissAny(page, TEAMS.popups),

	async recoverLobby(page) {
		return clickIfVisible(page, TEAMS.joinButtonEnabled);
	},

	snapshot: (page, botName) => readSnapshot(page, TEAMS.probe, botName),

	async prepareCall(page) {
		await dismissAny(page, TEAMS.popups);
		// The caption list mounts only after someone speaks, so the menu click is all we can check.
		let captions = false;
		if (await clickIfVisible(page, TEAMS.moreButton)) {
			const item = await findByText(page, '[role="menuitem"]', ["Captions", "Turn on live captions"]);
			captions = item !== null;
			await item?.click();
		}
		if (!(await findVisible(page, TEAMS.chatInput))) await clickIfVisible(page, TEAMS.chatButton);
		return captions && (await findVisible(page, TEAMS.chatInput)) !== null;
	},

	async sendChat(page, text) {
		let input = await findVisible(page, TEAMS.chatInput);
		if (!input) {
			await clickIfVisible(page, TEAMS.chatButton);
			input = await waitVisible(page, TEAMS.chatInput, 3_000);
		}
		if (!input) throw new Error("Teams chat input not found");
		await input.click();
		await input.type(text);
		await input.press("Enter");
	},

	async setMicrophone(page, on) {
		await clickIfVisible(page, on ? TEAMS.micMuted : TEAMS.micLive);
	},

	async setCamera(page, on) {
		await clickIfVisible(page, on ? TEAMS.cameraOff : TEAMS.cameraLive);
	},

	async leave(page) {
		if (await clickIfVisible(page, TEAMS.leave)) return;
		await clickIfVisible(page, TEAMS.lobbyCancel);
	},
};
