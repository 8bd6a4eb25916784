/** Microsoft Teams web driver. Selectors and texts as Teams shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { TEAMS_PAGE } from "../../src/platforms/teams/page.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { clickIfVisible, dismissAny, findByText, findVisible, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const TEAMS = TEAMS_PAGE;

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
			const launcher = await findByText(page, "button", allTexts(TEAMS.continueInBrowser));
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

	snapshot: (page, context) => readSnapshot(page, TEAMS.probe, context),

	async prepareCall(page) {
		await dismissAny(page, TEAMS.popups);
		// The caption list mounts only after someone speaks, so the menu click is all we can check.
		let captions = false;
		if (await clickIfVisible(page, TEAMS.moreButton)) {
			const item = await findByText(page, '[role="menuitem"]', allTexts(TEAMS.captionsItems));
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

	startPresenting: (page, log) => startPresenting(page, TEAMS.share, log),
	stopPresenting: (page) => stopPresenting(page, TEAMS.share),
};
