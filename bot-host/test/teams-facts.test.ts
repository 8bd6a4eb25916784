/**
 * Teams' page facts read by the in-page reader on pages shaped as the peers describe them, in real
 * Chromium: the roster panel as a second source of people (V), machine ids that are no one's
 * name, and outcome texts that count only on their own screens (A).
 */
import type { Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEAMS_PAGE } from "../../src/platforms/teams/page.ts";
import { type BotBrowser, launchBotBrowser } from "../bot/browser.ts";
import { chromiumSandbox } from "../bot/chromium-sandbox.ts";
import { readSnapshot } from "../drivers/probe.ts";

const tile = (name: string, outline = '<div data-tid="voice-level-stream-outline"></div>') =>
	`<div data-stream-type="Video" data-tid="${name}">${outline}<span>${name}</span></div>`;

describe("Teams' page facts", () => {
	let bot: BotBrowser;
	let page: Page;
	beforeAll(async () => {
		bot = await launchBotBrowser("teams-facts-test", {
			executablePath: "/usr/bin/chromium",
			extraFlags: [],
			fakeDevices: true,
			sandbox: chromiumSandbox("/usr/bin/chromium", process.env.BOT_CHROMIUM_SANDBOX, () => {}).sandbox,
		});
		page = await bot.browser.newPage();
	});
	afterAll(async () => {
		await bot?.close();
	});

	const read = async (body: string) => {
		await page.setContent(`<!doctype html><body><button id="hangup-button">Leave</button>${body}</body>`);
		return readSnapshot(page, TEAMS_PAGE.probe, { botName: "Notetaker", admittedForMs: 5_000 });
	};

	it("counts the people in the roster panel too, and no machine id as a person", async () => {
		const snap = await read(`${tile("Ana")}${tile("video-stream-2", "")}${tile("Notetaker")}
			<div data-tid="roster"><div role="tree">
				<div role="treeitem" data-tid="roster-participant"><span title="Dana Diaz">Dana Diaz</span></div>
				<div role="treeitem" data-tid="roster-participant"><span title="Notetaker">Notetaker</span><span>(Guest)</span></div>
				<div role="treeitem" data-tid="roster-participant"><span title="Ana">Ana</span></div>
			</div></div>`);
		expect(snap.participants.sort()).toEqual(["Ana", "Dana Diaz"]);
	});

	it("reads a speaker only where the outline is lit or occluded, though every tile has one", async () => {
		const snap = await read(`<style>.lit::before{content:"";border:2px solid rgb(91,95,199);opacity:1}</style>
			${tile("Ana")}${tile("Ben", '<div data-tid="voice-level-stream-outline" class="lit"></div>')}
			${tile("Cem", '<div data-tid="voice-level-stream-outline" class="vdi-frame-occlusion"></div>')}`);
		expect(snap.activeSpeakers.sort()).toEqual(["Ben", "Cem"]);
	});

	it("reads removal only in the calling-retry title, and no outcome from a meeting title or a toast", async () => {
		const outside = await read(`<h2>You've been removed from this meeting: retro of the call ended early</h2>
			<div role="alert">Removed from the meeting</div>`);
		expect(outside.state).toBe("in_call");
		const inside = await read(`<h1 id="calling-retry-screen-title">You\u2019ve been removed from this meeting</h1>`);
		expect(inside.state).toBe("removed");
		const e2ee = await read(`<div data-tid="calling-e2ee-end-screen"><h1>An encryption error occurred</h1></div>`);
		expect(e2ee.state).toBe("encryption_error");
	});
});
