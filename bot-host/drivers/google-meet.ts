/** Google Meet driver. Selectors and texts as Meet shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { MEET_PAGE } from "../../src/platforms/google-meet/page.ts";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { clickIfVisible, dismissAny, findByText, findVisible, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const MEET = MEET_PAGE;

export const googleMeet: MeetingDriver = {
	platform: "google_meet",

	joinUrl(meetingUrl) {
		// Meet has no passcode; keep only the code and pin the UI language (texts are matched in English).
		const url = new URL(meetingUrl);
		const code = url.pathname.split("/").filter(Boolean)[0] ?? "";
		return `https://meet.google.com/${code}?hl=en`;
	},

	async join(page: Page, { botName, step = () => {} }: JoinOptions) {
		const name = await waitVisible(page, MEET.nameInput, 20_000);
		if (!name) throw new LayoutChanged("Google Meet pre-join screen did not show a name field");
		await typeInto(name, botName);
		step("typed the bot's name");
		if (await clickIfVisible(page, MEET.micOn)) step("turned the microphone off");
		if (await clickIfVisible(page, MEET.cameraOn)) step("turned the camera off");
		const join = await findByText(page, MEET.joinButtons, allTexts(MEET.joinTexts));
		if (!join) throw new LayoutChanged(`Google Meet join button not found (looked for ${allTexts(MEET.joinTexts).join(", ")})`);
		const label = await join.evaluate((e) => e.textContent?.trim() ?? "");
		await join.click();
		step(`clicked ${label}`);
	},

	snapshot: (page, context) => readSnapshot(page, MEET.probe, context),

	dismissInterruptions: (page) => dismissAny(page, MEET.popups),

	async prepareCall(page) {
		await dismissAny(page, MEET.popups);
		if (await clickIfVisible(page, MEET.captionsOff)) await waitVisible(page, MEET.captionsOn, 1_500);
		if (!(await findVisible(page, MEET.chatInput))) await clickIfVisible(page, MEET.chatButton);
		return (await findVisible(page, MEET.captionsOn)) !== null && (await findVisible(page, MEET.chatInput)) !== null;
	},

	async sendChat(page, text) {
		let input = await waitVisible(page, MEET.chatInput, 200);
		if (!input) {
			await clickIfVisible(page, MEET.chatButton);
			input = await waitVisible(page, MEET.chatInput, 3_000);
		}
		if (!input) throw new Error("Google Meet chat input not found");
		await input.type(text);
		await input.press("Enter");
	},

	async setMicrophone(page, on) {
		await clickIfVisible(page, on ? MEET.micOff : MEET.micOn);
	},

	async setCamera(page, on) {
		await clickIfVisible(page, on ? MEET.cameraOff : MEET.cameraOn);
	},

	async leave(page) {
		if (!(await clickIfVisible(page, MEET.leave))) return;
		const confirm = await findByText(page, "button, span", allTexts(MEET.leaveConfirm));
		await confirm?.click();
	},

	startPresenting: (page, log) => startPresenting(page, MEET.share, log),
	stopPresenting: (page) => stopPresenting(page, MEET.share),
};
