/** Google Meet driver. Hooks and texts from src/platforms/google-meet/ (docs/sandbox.md#google-meet). */
import type { Page } from "puppeteer-core";
import { MEET_PAGE as MEET } from "../../src/platforms/google-meet/page.ts";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { dismissNotices, joinButton, setCaptionLanguage, turnOff, wake } from "./google-meet-steps.ts";
import { clickIfVisible, findVisible, pressUncovered, typeInto, waitForText, waitVisible } from "./page-controls.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { readSnapshot } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const DEVICES = [
	{ name: "microphone", on: MEET.micIsOn, off: MEET.micIsOff },
	{ name: "camera", on: MEET.cameraIsOn, off: MEET.cameraIsOff },
];

export const googleMeet: MeetingDriver = {
	platform: "google_meet",

	joinUrl(meetingUrl) {
		// Meet has no passcode; keep only the code and pin the UI language (texts are matched in English first).
		const url = new URL(meetingUrl);
		const code = url.pathname.split("/").filter(Boolean)[0] ?? "";
		return `https://meet.google.com/${code}?hl=en`;
	},

	async join(page: Page, { botName, step = () => {}, again = false, input }: JoinOptions) {
		// Meet refuses a join whose clicks and typing look scripted: all of it goes through `input` (the display's own).
		const name = await waitVisible(page, MEET.nameInput, again ? 2_000 : 20_000);
		if (!name) throw new LayoutChanged("Google Meet pre-join screen did not show a name field");
		await typeInto(name, botName, input);
		step("typed the bot's name");
		for (const device of DEVICES) {
			const result = await turnOff(page, device.on, device.off, again, input);
			if (result === "off") step(`the ${device.name} is off`);
			else if (result === "stuck") step(`the ${device.name} did not turn off after five tries`);
		}
		const { button, label } = await joinButton(page, again);
		// Something over the button (an overlay, a notice) is cleared or pressed through with the keyboard.
		const how = await pressUncovered(page, button, () => dismissNotices(page), input);
		await button.dispose();
		step(how === "clicked" ? `clicked ${label}` : `pressed ${label} with Enter (something covered it)`);
	},

	snapshot: (page, context) => readSnapshot(page, MEET.probe, context),

	dismissInterruptions: (page) => dismissNotices(page),

	async prepareCall(page, { language } = {}) {
		await wake(page);
		await dismissNotices(page);
		if (await clickIfVisible(page, MEET.captionsOff)) await waitVisible(page, MEET.captionsOn, 5_000);
		const languageSet = !language || (await setCaptionLanguage(page, language));
		if (!(await findVisible(page, MEET.chatInput))) {
			await wake(page);
			await clickIfVisible(page, MEET.chatButton);
		}
		await wake(page);
		return languageSet && (await findVisible(page, MEET.captionsOn)) !== null && (await findVisible(page, MEET.chatInput)) !== null;
	},

	async sendChat(page, text) {
		let input = await waitVisible(page, MEET.chatInput, 200);
		if (!input) {
			await wake(page);
			await clickIfVisible(page, MEET.chatButton);
			input = await waitVisible(page, MEET.chatInput, 3_000);
		}
		if (!input) throw new Error("Google Meet chat input not found");
		await input.type(text);
		await input.press("Enter");
	},

	async setMicrophone(page, on) {
		await wake(page);
		await clickIfVisible(page, on ? MEET.micIsOff : MEET.micIsOn);
	},

	async setCamera(page, on) {
		await wake(page);
		await clickIfVisible(page, on ? MEET.cameraIsOff : MEET.cameraIsOn);
	},

	async leave(page) {
		// A clicks leave up to five times; the toolbar may have hidden again in between.
		for (let attempt = 0; attempt < 3; attempt++) {
			await wake(page);
			const leave = await findVisible(page, MEET.leave);
			if (!leave) return;
			await pressUncovered(page, leave);
			await leave.dispose();
			const confirm = await waitForText(page, "button, span", allTexts(MEET.leaveConfirm), 800);
			await confirm?.click();
			const deadline = Date.now() + 1_500;
			while (Date.now() < deadline) {
				const still = await findVisible(page, MEET.leave);
				if (!still) return;
				await still.dispose();
				await new Promise((r) => setTimeout(r, 100));
			}
		}
	},

	startPresenting: (page, log) => startPresenting(page, MEET.share, log),
	stopPresenting: (page) => stopPresenting(page, MEET.share),
};
