/** Google Meet driver. Selectors and texts as Meet shows them (docs/sandbox.md#how-each-platform-is-imitated). */
import type { Page } from "puppeteer-core";
import { clickIfVisible, dismissAny, findByText, findVisible, type ProbeTable, readSnapshot, typeInto, waitVisible } from "./probe.ts";
import { type JoinOptions, LayoutChanged, type MeetingDriver } from "./types.ts";

const MEET = {
	nameInput: ['input[jsname][type="text"][aria-label="Your name"]', 'input[type="text"][aria-label="Your name"]'],
	micOn: ['[aria-label="Turn off microphone"]'],
	micOff: ['[aria-label="Turn on microphone"]'],
	cameraOn: ['[aria-label="Turn off camera"]'],
	cameraOff: ['[aria-label="Turn on camera"]'],
	joinButtons: "button, [role=button], span",
	joinTexts: ["Ask to join", "Ask to join anyway", "Join now", "Join the call now", "Join anyway", "Join here too", "Switch here"],
	// Recording / transcription notices; never the "take notes for me" consent gate.
	popups: { selectors: ['button[data-mdc-dialog-action="ok"]'], texts: ["Got it"] },
	captionsOff: ['button[aria-label="Turn on captions"]'],
	captionsOn: ['button[aria-label="Turn off captions"]'],
	leave: ['button[jsname="CQylAd"][aria-label="Leave call"]', 'button[aria-label="Leave call"]'],
	leaveConfirm: ["Just leave the meeting"],
	chatButton: ['button[aria-label="Chat with everyone"]'],
	chatInput: ['textarea[aria-label="Send a message"]'],
	probe: {
		states: [
			{ state: "removed", texts: ["You've been removed from the meeting"] },
			{ state: "denied", texts: ["Someone in the call denied your request to join"] },
			{ state: "unanswered", texts: ["No one responded to your request to join the call"] },
			{ state: "ended", texts: ["Your host ended the meeting for everyone", "Meeting ended", "Call ended"] },
			{ state: "not_found", texts: ["Check your meeting code", "Invalid video call name"] },
			{ state: "bot_wall", texts: ["You can't join this meeting"] },
			{ state: "sign_in_required", urls: ["accounts.google.com/"] },
			{ state: "left", texts: ["You left the meeting"] },
			// A visible lobby indicator wins over anything that looks in-call (the toolbar is there in the lobby too).
			{
				state: "lobby",
				texts: ["Asking to be let in", "You'll join the call when someone lets you in", "Waiting for the host to join"],
			},
			{
				state: "in_call",
				selectors: [
					'button[aria-label="Turn on captions"]',
					'button[aria-label="Turn off captions"]',
					"[data-self-name]",
					'button[aria-label="Present now"]',
					"[data-participant-id] span.notranslate",
				],
			},
			{ state: "prejoin", selectors: ['input[aria-label="Your name"]'] },
		],
		captions: { entry: 'div[role="region"][aria-label="Captions"] .nMcdL', speaker: { selector: ".NWpY1d" }, text: ".ygicle" },
		speakers: {
			tile: "[data-participant-id]",
			speaking: [".Oaajhc", ".HX2H7", ".wEsLMd", ".OgVli", '[data-audio-level]:not([data-audio-level="0"])'],
			name: { selector: "span.notranslate" },
		},
		// Tiles, not the People panel: the side panel shows one of People or Chat at a time.
		participants: { item: "[data-participant-id]", name: { selector: "span.notranslate" }, self: ["[data-self-name]"], visibleOnly: false },
		chat: { message: "[data-message-id]", text: ".jO4O1", sender: { closest: ".Ss4fHf", selector: ".poVWob" }, inheritSender: false },
	} satisfies ProbeTable,
};

export const googleMeet: MeetingDriver = {
	platform: "google_meet",

	joinUrl(meetingUrl) {
		// Meet has no passcode; keep only the code and pin the UI language (texts are matched in English).
		const url = new URL(meetingUrl);
		const code = url.pathname.split("/").filter(Boolean)[0] ?? "";
		return `https://meet.google.com/${code}?hl=en`;
	},

	async join(page: Page, { botName, step = () => {}, input }: JoinOptions) {
		// Meet refuses a join whose clicks and typing look scripted: all of it goes through `input` (the display's own).
		const name = await waitVisible(page, MEET.nameInput, 20_000);
		if (!name) throw new LayoutChanged("Google Meet pre-join screen did not show a name field");
		await typeInto(name, botName, input);
		step("typed the bot's name");
		if (await clickIfVisible(page, MEET.micOn, input)) step("turned the microphone off");
		if (await clickIfVisible(page, MEET.cameraOn, input)) step("turned the camera off");
		const join = await findByText(page, MEET.joinButtons, MEET.joinTexts);
		if (!join) throw new LayoutChanged(`Google Meet join button not found (looked for ${MEET.joinTexts.join(", ")})`);
		const label = await join.evaluate((e) => e.textContent?.trim() ?? "");
		await input.click(join);
		step(`clicked ${label}`);
	},

	snapshot: (page, botName) => readSnapshot(page, MEET.probe, botName),

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
		const confirm = await findByText(page, "button, span", MEET.leaveConfirm);
		await confirm?.click();
	},
};
