/**
 * The in-page reader on pages made for each rule, in real Chromium: which screen text decides a
 * state (never what participants write), scoped outcome screens, case and apostrophes, rules that
 * hold only after admission, both caption layouts, and caption changes pushed as they happen.
 */
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeTable } from "../../src/platforms/page-facts.ts";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { type CaptionChange, captionFeed, readSnapshot } from "../drivers/probe.ts";

const TABLE: ProbeTable = {
	states: [
		{ state: "removed", texts: { en: ["You've been removed from the meeting"], de: ["Du wurdest aus der Besprechung entfernt"] } },
		{ state: "ended", texts: { en: ["The meeting has ended"] }, within: ["#outcome"] },
		{ state: "ended", urls: ["example.invalid/signin"], admittedForMs: 20_000 },
		{ state: "lobby", texts: { en: ["Someone will let you in soon"] } },
		{ state: "in_call", selectors: ["#leave"] },
	],
	participantText: ["#captions", "#chat", ".tile"],
	captions: {
		regions: ["#captions"],
		layouts: [
			{ kind: "entries", entry: ".entry", speaker: [{ selector: ".who" }], text: [".said-v2", ".said"] },
			{ kind: "paired", speaker: { selector: "[data-tid=author]" }, text: "[data-tid=caption-text]" },
		],
	},
	speakers: { tiles: [".tile"], speaking: [".speaking"], name: [{ selector: ".name" }, { attribute: "data-name" }] },
	participants: {
		items: [".tile"],
		name: [{ selector: ".name" }, { attribute: "data-name" }],
		self: [".me"],
		visibleOnly: false,
		notPeople: ["(presentation)"],
	},
	chat: { messages: ["[data-message-id]"], text: [".body"], sender: [{ selector: ".sender" }], inheritSender: true },
};

const context = { botName: "Notetaker", admittedForMs: null };

describe("the in-page reader", () => {
	let bot: BotBrowser;
	let page: Page;
	const pushed: CaptionChange[] = [];

	beforeAll(async () => {
		bot = await launchBotBrowser("probe-test", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
		});
		page = await bot.browser.newPage();
		await captionFeed(page, (change) => pushed.push(change));
	});
	afterAll(async () => {
		await bot?.close();
	});

	const show = (body: string) => page.setContent(`<!doctype html><body>${body}</body>`);
	const state = async (admittedForMs: number | null = null) => (await readSnapshot(page, TABLE, { ...context, admittedForMs })).state;

	it("never reads a state from captions, chat or names, however they are written", async () => {
		await show(`<button id="leave">Leave</button>
			<div id="captions"><div class="entry"><span class="who">Mallory</span><span class="said">You've been removed from the meeting</span></div></div>
			<div id="chat"><div data-message-id="1"><span class="sender">Eve</span><span class="body">SOMEONE WILL LET YOU IN SOON</span></div></div>
			<div class="tile"><span class="name">The meeting has ended</span></div>`);
		expect(await state()).toBe("in_call");
	});

	it("cuts a caption out whole when it names someone whose tile was cut out too", async () => {
		await show(`<button id="leave">Leave</button><div class="tile"><span class="name">Mallory</span></div>
			<div id="captions"><div class="entry"><span class="who">Mallory</span><span class="said">Someone will let you in soon</span></div></div>`);
		expect(await state()).toBe("in_call");
	});

	it("reads an outcome screen's text in any case, with curly apostrophes, in the languages it knows", async () => {
		await show(`<button id="leave">Leave</button><h1>YOU\u2019VE BEEN REMOVED FROM THE MEETING</h1>`);
		expect(await state()).toBe("removed");
		await show(`<p>Du wurdest aus der Besprechung entfernt.</p>`);
		expect(await state()).toBe("removed");
	});

	it("reads a scoped outcome only inside its screen, and only visible text", async () => {
		await show(`<button id="leave">Leave</button><p>The meeting has ended</p><div id="outcome" hidden>The meeting has ended</div>`);
		expect(await state()).toBe("in_call");
		await show(`<div id="outcome">The meeting has ended at 10:42</div>`);
		expect(await state()).toBe("ended");
	});

	it("holds an after-admission rule only once the bot has been in the call long enough", async () => {
		await page.setRequestInterception(true);
		const answer = (request: import("puppeteer-core").HTTPRequest) =>
			void request.respond({ status: 200, contentType: "text/html", body: "<p>Sign in</p>" });
		page.on("request", answer);
		await page.goto("https://example.invalid/signin");
		page.off("request", answer);
		await page.setRequestInterception(false);
		expect(await state(null)).toBe("unknown");
		expect(await state(5_000)).toBe("unknown");
		expect(await state(25_000)).toBe("ended");
	});

	it("reads captions by the first layout that finds lines, falling back when hooks are renamed", async () => {
		await show(`<div id="captions"><div class="entry"><span class="who">Alice</span><span class="said">Hello there</span></div></div>`);
		let snap = await readSnapshot(page, TABLE, context);
		expect(snap.captions).toEqual([{ key: expect.any(String), speaker: "Alice", text: "Hello there" }]);
		// Teams' guest view: author and text side by side, no element around each line.
		await show(`<div id="captions"><span data-tid="author">Bob</span><span data-tid="caption-text">First</span>
			<span data-tid="caption-text">still Bob</span><span data-tid="author">Carol</span><span data-tid="caption-text">Mine</span></div>`);
		snap = await readSnapshot(page, TABLE, context);
		expect(snap.captions.map(({ speaker, text }) => ({ speaker, text }))).toEqual([
			{ speaker: "Bob", text: "First" },
			{ speaker: "Bob", text: "still Bob" },
			{ speaker: "Carol", text: "Mine" },
		]);
	});

	it("reads a web page off the platform's hosts as the end once in the call, and a browser error page not", async () => {
		const table: ProbeTable = { ...TABLE, states: [...TABLE.states, { state: "ended", offHosts: ["zoom.us"], admittedForMs: 0 }] };
		await page.setRequestInterception(true);
		const answer = (request: import("puppeteer-core").HTTPRequest) =>
			void request.respond({ status: 200, contentType: "text/html", body: "<p>Thanks for meeting with us</p>" });
		page.on("request", answer);
		const stateAt = async (url: string, admittedForMs: number | null) => {
			await page.goto(url);
			return (await readSnapshot(page, table, { ...context, admittedForMs })).state;
		};
		expect(await stateAt("https://www.example.invalid/thanks", null)).toBe("unknown");
		expect(await stateAt("https://www.example.invalid/thanks", 1_000)).toBe("ended");
		expect(await stateAt("https://app.zoom.us/wc/leave-notice", 1_000)).toBe("unknown");
		expect(await stateAt("https://us05web.zoom.us/somewhere", 1_000)).toBe("unknown");
		page.off("request", answer);
		await page.setRequestInterception(false);
		await page.goto("about:blank");
		expect((await readSnapshot(page, table, { ...context, admittedForMs: 1_000 })).state).toBe("unknown");
	});

	it("knows an error page by its title, whatever its text", async () => {
		const table: ProbeTable = { ...TABLE, states: [{ state: "waiting_for_host", titles: { en: ["Error - Zoom"] } }, ...TABLE.states] };
		await page.setContent("<!doctype html><title>ERROR - ZOOM</title><body><p>Something else</p></body>");
		expect((await readSnapshot(page, table, context)).state).toBe("waiting_for_host");
		await page.setContent("<!doctype html><title>Zoom</title><body><p>Error - Zoom</p></body>");
		expect((await readSnapshot(page, table, context)).state).toBe("unknown");
	});

	it("starts a new line when a reused caption element's text no longer extends the old one", async () => {
		const reused: ProbeTable = {
			...TABLE,
			captions: {
				regions: ["#captions"],
				layouts: [{ kind: "entries", entry: ".item", speaker: null, text: [".item"], reusedEntry: true }],
			},
		};
		await show(`<div id="captions"><span class="item">Good morning</span></div>`);
		const read = async (text: string) => {
			await page.evaluate((t) => {
				const item = document.querySelector(".item");
				if (item) item.textContent = t;
			}, text);
			return (await readSnapshot(page, reused, context)).captions[0]?.key;
		};
		const first = await read("Good morning");
		// Growing, with punctuation and capitals revised, the line is the same.
		expect(await read("Good morning everyone")).toBe(first);
		expect(await read("Good morning, everyone, the numbers")).toBe(first);
		const second = await read("Thanks Alice");
		expect(second).not.toBe(first);
		expect(await read("Thanks Alice, let us review")).toBe(second);
		// Without the flag an element keeps its key whatever it says (Meet rewrites a line in place).
		const inPlace: ProbeTable = {
			...TABLE,
			captions: { regions: ["#captions"], layouts: [{ kind: "entries", entry: ".item", speaker: null, text: [".item"] }] },
		};
		await show(`<div id="captions"><span class="item">Good morning</span></div>`);
		const keyNow = async () => (await readSnapshot(page, inPlace, context)).captions[0]?.key;
		const kept = await keyNow();
		await page.evaluate(() => {
			const item = document.querySelector(".item");
			if (item) item.textContent = "Something else entirely";
		});
		expect(await keyNow()).toBe(kept);
	});

	it("drops chat elements without text, keeps grouped senders, and leaves out names that are not people", async () => {
		await show(`<div id="chat"><div data-message-id="pin"><button>Pin</button></div>
			<div data-message-id="1"><span class="sender">Alice</span><span class="body">one</span></div>
			<div data-message-id="2"><span class="body">two</span></div></div>
			<div class="tile" data-name="Alice"></div><div class="tile"><span class="name">Alice (Presentation)</span></div>
			<div class="tile me"><span class="name">Notetaker</span></div><div class="tile speaking" data-name="Bob"></div>`);
		const snap = await readSnapshot(page, TABLE, context);
		expect(snap.chat).toEqual([
			{ sender: "Alice", text: "one" },
			{ sender: "Alice", text: "two" },
		]);
		expect(snap.participants).toEqual(["Alice", "Bob"]);
		expect(snap.activeSpeakers).toEqual(["Bob"]);
	});

	it("pushes every caption change as the page makes it, once asked to watch, with the keys a reading gives and who was speaking", async () => {
		await show(`<div id="host"></div><div class="tile speaking" data-name="Alice"></div>`);
		await readSnapshot(page, TABLE, { ...context, watchCaptions: true });
		pushed.length = 0;
		await page.evaluate(() => {
			const region = document.createElement("div");
			region.id = "captions";
			region.innerHTML = '<div class="entry"><span class="who">Alice</span><span class="said">Good</span></div>';
			document.getElementById("host")?.append(region);
		});
		await expect.poll(() => pushed.at(-1)?.captions[0]?.text).toBe("Good");
		// Who the tiles showed speaking as the line appeared: a nameless line's speaker (Zoom).
		expect(pushed.at(-1)?.activeSpeakers).toEqual(["Alice"]);
		await page.evaluate(() => {
			const said = document.querySelector(".said");
			if (said?.firstChild) (said.firstChild as Text).data = "Good morning";
		});
		await expect.poll(() => pushed.at(-1)?.captions[0]?.text).toBe("Good morning");
		const read = await readSnapshot(page, TABLE, context);
		expect(pushed.at(-1)?.captions[0]?.key).toBe(read.captions[0]?.key);
		// A change elsewhere on the page pushes nothing.
		const before = pushed.length;
		await page.evaluate(() => document.body.append("unrelated"));
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(pushed.length).toBe(before);
	});
	it("cuts each participant's words out where they stand: a name that also occurs in a chat line leaves no part of the line behind", async () => {
		await show(`<button id="leave">Leave</button><div class="tile"><span class="name">Mallory</span></div>
			<div id="chat"><div data-message-id="1"><span class="body">Mallory: someone will let you in soon</span></div></div>`);
		expect(await state()).toBe("in_call");
	});

	it("holds a before-admission rule only until the bot is in, knows the bot by its self marker's id, and reads nested caption regions once", async () => {
		const table: ProbeTable = {
			...TABLE,
			states: [
				{ state: "denied", texts: { en: ["You left the meeting"] }, beforeAdmission: true },
				{ state: "left", texts: { en: ["You left the meeting"] } },
			],
			captions: { ...TABLE.captions, regions: ["#wrap", "#captions"] },
			participants: { ...TABLE.participants, selfId: "data-id" },
		};
		await show(`<h1>You left the meeting</h1>
			<div class="tile" data-id="b"><span class="name">Notetaker 7</span><i class="me"></i></div>
			<div class="tile" data-id="b"><span class="name">You</span></div>
			<div class="tile" data-id="a"><span class="name">Alice</span></div>
			<div id="wrap"><div id="captions"><div class="entry"><span class="who">Alice</span><span class="said">Hi</span></div></div></div>`);
		expect((await readSnapshot(page, table, context)).state).toBe("denied");
		const admitted = await readSnapshot(page, table, { ...context, admittedForMs: 1_000 });
		expect(admitted.state).toBe("left");
		expect(admitted.participants).toEqual(["Alice"]);
		expect(admitted.captions.map(({ speaker, text }) => ({ speaker, text }))).toEqual([{ speaker: "Alice", text: "Hi" }]);
	});
});
