/** Zoom web client driver. Selectors and texts as the Zoom web client shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { allTexts } from "../../src/platforms/page-facts.ts";
import { ZOOM_PAGE } from "../../src/platforms/zoom/page.ts";
import { startPresenting, stopPresenting } from "./presenting.ts";
import { clickIfVisible, dismissAny, findByText, findVisible, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const ZOOM = ZOOM_PAGE;

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

	snapshot: (page, context) => readSnapshot(page, ZOOM.probe, context),

	dismissInterruptions: (page) => dismissAny(page, ZOOM.popups),

	async prepareCall(page) {
		while (await dismissAny(page, ZOOM.popups)) await new Promise((r) => setTimeout(r, 400));
		if (!(await findVisible(page, ZOOM.subtitles)) && (await clickIfVisible(page, ZOOM.moreControls))) {
			if (await clickIfVisible(page, ZOOM.captionsMenu))
				await (await findByText(page, "a, [role=menuitem]", allTexts(ZOOM.showCaptions)))?.click();
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

	startPresenting: (page, log) => startPresenting(page, ZOOM.share, log),
	stopPresenting: (page) => stopPresenting(page, ZOOM.share),
};
