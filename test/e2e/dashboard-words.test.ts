/**
 * The dashboard in people's words (dashboard/src/words/), in real headless Chromium against the
 * e2e stack, the bot played over the real channel and the copilot's model the scripted server: a
 * failed and a stopped meeting, a refused form and a copilot's action-item card show words, never
 * a status, reason, cause, step, help kind, field path or card kind as its code. The copilot page
 * says where the copilot is and offers Stop while it runs, Start only when none does.
 */
import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fill, launchBrowser, openPage, press, screenshot, seeText, signIn, visibleText } from "./browser";
import { api, gateway, nativeId, newAccount } from "./client";
import { modelServer, script } from "./model-script";
import { playBot, playedMeeting, spawnFor } from "./simulated-bot";

/** Codes that must never reach the page as they are. */
const CODES =
	/\b(join_failure|left_alone|startup_alone|awaiting_admission\w*|max_bot_time_exceeded|validation_error|no_bot_capacity|bot_host_lost|host_drained|help_timeout|start_browser|open_page|ask_to_join|in_call|unknown_screen|layout_changed|sign_in_required|captions_unreadable|action_item|ACTION_ITEM|needs_help|body\.\w+|query\.\w+|stopped: )/;

let browser: Browser;
let account: { key: string; userId: number };
let page: Page;

beforeAll(async () => {
	browser = await launchBrowser();
	account = await newAccount(gateway());
	const models = await api("PUT", "/user/models", {
		key: account.key,
		json: { base_url: `${modelServer()}/v1`, model: "e2e-words-model", api_key: "e2e-model-key-0123" },
	});
	expect(models.status).toBe(200);
	({ page } = await openPage(browser, `${gateway()}/`));
	await signIn(page, account.key);
});

afterAll(async () => {
	await browser?.close();
});

const now = () => new Date().toISOString();

describe("the dashboard in words", () => {
	it("shows a failed and a stopped meeting, and a refused link, in words without their codes", async () => {
		const failed = await playedMeeting(account.key, { statuses: ["joining"] });
		await failed.bot.send({
			type: "status",
			status: "failed",
			failure_stage: "joining",
			completion_reason: "join_failure",
			join_step: "ask_to_join",
			reason: "meeting not found (invalid link, code or passcode)",
			timestamp: now(),
		});
		const stopped = await playedMeeting(account.key, { statuses: ["joining", "active"] });
		expect((await api("DELETE", `/bots/google_meet/${stopped.code}`, { key: account.key })).status).toBe(204);
		await stopped.bot.send({ type: "status", status: "completed", completion_reason: "stopped", timestamp: now() });

		const hostEnded = await playedMeeting(account.key, { platform: "zoom", statuses: ["joining", "active"] });
		await hostEnded.bot.send({
			type: "status",
			status: "completed",
			completion_reason: "left_alone",
			completion_cause: "ended_by_host",
			reason: "the host ended the meeting",
			timestamp: now(),
		});

		await page.goto(`${gateway()}/#/meetings/${failed.meetingId}`);
		await seeText(page, "Failed while joining: the bot could not join.");
		await seeText(page, "Last step: asking to join.");
		expect(await visibleText(page)).not.toMatch(CODES);
		await screenshot(page, "words-failed-meeting");

		await page.goto(`${gateway()}/#/meetings/${stopped.meetingId}`);
		await seeText(page, "Completed: you stopped the bot (or it left on request).");
		await seeText(page, "No recording: this bot was sent with recording off.");
		expect(await visibleText(page)).not.toMatch(CODES);

		// A Zoom meeting the host ended is named so, never as everyone else leaving.
		await page.goto(`${gateway()}/#/meetings/${hostEnded.meetingId}`);
		await seeText(page, "Completed: the host ended the meeting.");
		expect(await visibleText(page)).not.toContain("everyone else left");

		await page.goto(`${gateway()}/#/meetings`);
		await seeText(page, "the bot could not join");
		await seeText(page, "you stopped the bot (or it left on request)");
		await fill(page, "Meeting link", "https://meet.google.com/not-a-meeting-code");
		await press(page, "Send bot");
		await seeText(page, /Meeting link: /);
		expect(await visibleText(page)).not.toMatch(CODES);
		await screenshot(page, "words-meetings-list");
	});

	it("says a live bot sent with recording on records, and what, before any file exists", async () => {
		const code = nativeId("google_meet");
		const created = await api("POST", "/bots", {
			key: account.key,
			json: { platform: "google_meet", native_meeting_id: code, recording_enabled: true, recording_config: { video: false } },
		});
		expect(created.status).toBe(201);
		const meetingId = created.body.id as number;
		const bot = await playBot(await spawnFor(meetingId));
		for (const status of ["joining", "active"]) await bot.send({ type: "status", status, timestamp: now() });
		await page.goto(`${gateway()}/#/meetings/${meetingId}`);
		await seeText(page, "Recording (audio): its files appear here once the bot is in the call.");
		expect(await visibleText(page)).not.toContain("No recording");
	});

	it("shows the copilot's action item as words, and Stop while the copilot runs, also after a reload", async () => {
		const m = `dash-words-${crypto.randomUUID().slice(0, 8)}`;
		const actionItem = {
			name: "add_card",
			arguments: { kind: "action_item", title: "Send the pilot contract", body: "Bruno sends it on Monday", actionable: true },
		};
		await script(m, [{ text: ["Bruno will send the contract."], tool_calls: [actionItem] }]);
		const code = nativeId("google_meet");
		const live = await playedMeeting(account.key, { code, statuses: ["joining", "active"] });
		expect((await api("PATCH", `/meetings/google_meet/${code}`, { key: account.key, json: { title: `Pilot ${m}` } })).status).toBe(200);

		await page.goto(`${gateway()}/#/agent/copilot/${live.meetingId}`);
		await seeText(page, "Copilot: not started");
		await press(page, "Start copilot");
		await seeText(page, "Copilot: running");
		const buttons = () => page.$$eval(".copilot-actions button", (list) => list.map((b) => b.textContent?.trim()));
		expect(await buttons()).toEqual(["Stop copilot"]);

		for (const [i, [speaker, text]] of [
			["Alice", "Who sends the contract?"],
			["Bruno", "I will send the pilot contract on Monday"],
		].entries())
			await live.bot.send({
				type: "segment",
				segment: {
					segment_id: `s-${i}`,
					speaker,
					speaker_source: "caption",
					text,
					start: i + 1,
					end: i + 2,
					language: "en",
					completed: true,
				},
			});
		await seeText(page, "Bruno sends it on Monday", 30_000);
		expect(await page.$eval(".card-kind", (e) => e.textContent?.trim())).toBe("Action item");
		expect(await visibleText(page)).not.toMatch(CODES);
		await screenshot(page, "words-copilot-card");

		// A fresh load asks where the copilot is: it runs, so Stop, never Start.
		await page.reload({ waitUntil: "load" });
		await seeText(page, "Copilot: running");
		expect(await buttons()).toEqual(["Stop copilot"]);
		await press(page, "Stop copilot");
		await seeText(page, "Copilot: stopped");
		expect(await buttons()).toEqual(["Resume copilot"]);
		await page.reload({ waitUntil: "load" });
		await seeText(page, "Copilot: stopped");
		expect(await buttons()).toEqual(["Resume copilot"]);
	});
});
