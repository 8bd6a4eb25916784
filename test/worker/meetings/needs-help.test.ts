/**
 * A bot that asks for help, over the real bot channel (docs/status-machine.md#needs-help): the
 * meeting moves to `needs_help` with `data.help` and a screenshot its owner opens through a
 * signed link, everywhere the meeting is shown (API, /ws, webhooks); it returns to the live
 * status the bot reports next, or fails `help_timeout` after BOT_HELP_TIMEOUT_S with a `leave`
 * to the bot. A failure keeps what the bot saw last in `data.diagnostics`.
 */
import { describe, expect, it } from "vitest";
import type { MeetingStatusFrame } from "../../../src/live/frames";
import { BotStatusList, MeetingRecord } from "../../../src/routes/meeting-schemas";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { bytesOf, jpegBytes, openLink, pngBytes, uploadScreenshot } from "../screenshots/fixtures";
import { call, expectDocumented, json, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";
import { openSocket, SimulatedBot, spawnRequestFor } from "./bot-sim";
import { fireTimersNow, getMeeting, roomTimers, sendBot } from "./helpers";

/** Page text as a hostile meeting page could show it: markup, a link with its passcode, a bidi override, a control character. */
const HOSTILE_PAGE =
	"Verify you are human\n<img src=x onerror=alert(1)>\nhttps://meet.example/j/123?pwd=SECRET1\u202Egnp.exe\u0007 token=abc123";

async function stuckBot(headers: Record<string, string>, before: string[] = ["joining"]) {
	const code = meetCode();
	const meeting = await sendBot(headers, code);
	const spawn = await spawnRequestFor(meeting.id);
	const bot = await SimulatedBot.connect(spawn);
	for (const status of before) await bot.status(status);
	expect((await uploadScreenshot(spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
	await bot.status("needs_help", {
		reason: "a dialog the driver does not know",
		help: { kind: "captcha", page_text: HOSTILE_PAGE, screenshot: "help-1.jpg" },
	});
	return { code, meeting, spawn, bot };
}

type Help = { kind: string; reason: string; since: string; page_text: string; screenshot: unknown; screenshot_url: string | null };

describe("a bot that asks for help", () => {
	it("moves the meeting to needs_help with data.help, whose signed link serves the screenshot", async () => {
		const { headers } = await userWithKey();
		const { meeting } = await stuckBot(headers);
		const shown = await getMeeting(headers, meeting.id);
		expect(shown.status).toBe("needs_help");
		const help = shown.data.help as Help;
		expect(help).toMatchObject({
			kind: "captcha",
			reason: "a dialog the driver does not know",
			screenshot: { attempt: 1, name: "help-1.jpg" },
		});
		expect(Date.parse(help.since)).not.toBeNaN();
		// Kept as the page said it, lines and markup included (whoever shows it escapes it), without its secrets.
		expect(help.page_text).toBe("Verify you are human\n<img src=x onerror=alert(1)>\nhttps://meet.example/j/123 token=[redacted]");
		expect(help.screenshot_url).toMatch(
			new RegExp(`^https://gateway\\.test/public/screenshots/${meeting.id}/1/help-1\\.jpg\\?expires=\\d+&signature=`),
		);
		const image = await openLink(help.screenshot_url ?? "");
		expect(image.status).toBe(200);
		expect(image.headers.get("content-type")).toBe("image/jpeg");
		expect(await bytesOf(image)).toEqual(jpegBytes());
		// Every field is as /openapi.json documents it.
		await expectDocumented(MeetingRecord, await call("GET", `/meetings/${meeting.id}`, { headers }));
		await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		// Stored as a reference; each answer mints its own link.
		const list = await json<{ meetings: Meeting[] }>(await call("GET", "/meetings", { headers }));
		expect(list.meetings.find((m) => m.id === meeting.id)?.data.help).toMatchObject({
			screenshot_url: expect.stringContaining("signature="),
		});
		const bots = await json<{ running_bots: { meeting_id: number; status: string; data?: { help?: Help } }[] }>(
			await call("GET", "/bots/status", { headers }),
		);
		const row = bots.running_bots.find((b) => b.meeting_id === meeting.id);
		expect(row?.status).toBe("needs_help");
		expect((await openLink(row?.data?.help?.screenshot_url ?? "")).status).toBe(200);
		expect((await roomTimers(meeting.id)).timers.help).toBeGreaterThan(Date.now());
	});

	it("returns to the live status the bot reports next: data.help goes, into data.help_history, and the timer with it", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await stuckBot(headers);
		await bot.status("awaiting_admission");
		const back = await getMeeting(headers, meeting.id);
		expect(back.status).toBe("awaiting_admission");
		expect(back.data.help).toBeUndefined();
		expect(back.data.help_history).toEqual([
			expect.objectContaining({
				kind: "captcha",
				reason: "a dialog the driver does not know",
				screenshot: { attempt: 1, name: "help-1.jpg" },
			}),
		]);
		expect((await roomTimers(meeting.id)).timers.help).toBeUndefined();
		await bot.status("active");
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "active" });
	});

	it("keeps no screenshot the bot did not upload, and says why by kind when the bot gives no reason", async () => {
		const { headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
		await bot.status("needs_help", { help: { kind: "sign_in_required", page_text: "Sign in", screenshot: "never-sent.jpg" } });
		expect((await getMeeting(headers, meeting.id)).data.help).toMatchObject({
			kind: "sign_in_required",
			reason: "the meeting asks the bot to sign in",
			screenshot: null,
			screenshot_url: null,
		});
	});

	it("fails help_timeout when still stuck at the help timer, telling the bot to leave, and keeps what it saw", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await stuckBot(headers, ["joining", "awaiting_admission"]);
		await fireTimersNow(meeting.id);
		const ended = await eventually("the meeting to fail", async () => {
			const m = await getMeeting(headers, meeting.id);
			return m.status === "failed" ? m : undefined;
		});
		// A teardown: its reason is the stage's (in the lobby), its cause the help timeout.
		expect(ended).toMatchObject({
			completion_reason: "awaiting_admission_timeout",
			failure_stage: "awaiting_admission",
			data: { failure_cause: "help_timeout", failure_detail: "the bot asked for help and was still stuck 300 s later" },
		});
		expect(ended.data.help).toBeUndefined();
		expect(ended.data.diagnostics).toMatchObject({ page_state: "captcha", screenshot: { attempt: 1, name: "help-1.jpg" } });
		const link = ended.data.diagnostics?.screenshot_url;
		expect(await bytesOf(await openLink(link ?? ""))).toEqual(jpegBytes());
		expect(bot.commands()).toContainEqual(expect.objectContaining({ type: "command", act: { action: "leave" } }));
	});

	it("does nothing at the help timer once the bot got past the screen", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await stuckBot(headers);
		await bot.status("active");
		await fireTimersNow(meeting.id);
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "active" });
		expect(bot.commands()).toEqual([]);
	});
});

describe("a bot in the call that cannot read captions", () => {
	const CAPTIONS_REASON =
		"people have been heard talking for 12 s, but the bot has read no caption for 30 s: the platform's captions cannot be read";

	async function deafBot(headers: Record<string, string>, reason?: string) {
		const meeting = await sendBot(headers, meetCode());
		const spawn = await spawnRequestFor(meeting.id);
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("joining");
		await bot.status("active");
		expect((await uploadScreenshot(spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
		await bot.status("needs_help", {
			...(reason ? { reason } : {}),
			help: { kind: "captions_unreadable", page_text: "Ana: good morning everyone", screenshot: "help-1.jpg" },
		});
		return { meeting, bot };
	}

	it("is needs_help with its kind and no help timer: the help timer never ends the meeting, and active files the request", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await deafBot(headers, CAPTIONS_REASON);
		const shown = await expectDocumented(MeetingRecord, await call("GET", `/meetings/${meeting.id}`, { headers }));
		expect(shown.status).toBe("needs_help");
		expect(shown.data.help).toMatchObject({
			kind: "captions_unreadable",
			reason: CAPTIONS_REASON,
			page_text: "Ana: good morning everyone",
			screenshot: { attempt: 1, name: "help-1.jpg" },
		});
		await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		expect((await roomTimers(meeting.id)).timers.help).toBeUndefined();
		// The bot is in the call and recording: nothing the room times ends it.
		await fireTimersNow(meeting.id);
		expect(await getMeeting(headers, meeting.id)).toMatchObject({ status: "needs_help" });
		expect(bot.commands()).toEqual([]);

		await bot.status("active", { reason: "a caption was read again: the transcript goes on" });
		const back = await getMeeting(headers, meeting.id);
		expect(back.status).toBe("active");
		expect(back.data.help).toBeUndefined();
		expect(back.data.help_history).toEqual([
			expect.objectContaining({ kind: "captions_unreadable", reason: CAPTIONS_REASON, screenshot: { attempt: 1, name: "help-1.jpg" } }),
		]);
	});

	it("says why by kind without the bot's words, and times out once the bot is stuck on a screen of another kind", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await deafBot(headers);
		const deaf = (await getMeeting(headers, meeting.id)).data.help as Help;
		expect(deaf.reason).toBe("people are heard in the meeting but the bot can read no captions");
		// A new request while it still asks: the first is filed, the new one has its own since, and it times out.
		await bot.status("needs_help", { help: { kind: "unknown_screen", page_text: "Something new", screenshot: null } });
		const stuck = await getMeeting(headers, meeting.id);
		expect(stuck.data.help).toMatchObject({ kind: "unknown_screen" });
		expect(Date.parse((stuck.data.help as Help).since)).toBeGreaterThanOrEqual(Date.parse(deaf.since));
		expect(stuck.data.help_history).toEqual([expect.objectContaining({ kind: "captions_unreadable", since: deaf.since })]);
		expect((await roomTimers(meeting.id)).timers.help).toBeGreaterThan(Date.now());
		await fireTimersNow(meeting.id);
		const ended = await eventually("the meeting to fail", async () => {
			const m = await getMeeting(headers, meeting.id);
			return m.status === "failed" ? m : undefined;
		});
		expect(ended.data).toMatchObject({ failure_cause: "help_timeout" });
		expect(bot.commands()).toContainEqual(expect.objectContaining({ type: "command", act: { action: "leave" } }));
	});

	it("keeps the help timer of a request that times out when the bot asks again about the same thing", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await stuckBot(headers);
		const armed = (await roomTimers(meeting.id)).timers.help;
		await bot.status("needs_help", { help: { kind: "captcha", page_text: "Still a captcha", screenshot: null } });
		expect((await roomTimers(meeting.id)).timers.help).toBe(armed);
		expect((await getMeeting(headers, meeting.id)).data.help_history).toBeUndefined();
	});
});

describe("a failed bot's diagnostics", () => {
	it("are kept on the ended meeting with a working screenshot link, bounded and cleaned", async () => {
		const { headers } = await userWithKey();
		const meeting = await sendBot(headers, meetCode());
		const spawn = await spawnRequestFor(meeting.id);
		const bot = await SimulatedBot.connect(spawn);
		await bot.status("joining");
		expect((await uploadScreenshot(spawn, "failure.png", pngBytes())).status).toBe(201);
		const steps = Array.from({ length: 30 }, (_, i) => ({ at: new Date(Date.now() + i).toISOString(), step: `step ${i}` }));
		steps[29] = { at: steps[29]?.at ?? "", step: "clicked https://meet.example/x?pwd=SECRET2 \u202Ejoin" };
		await bot.status("failed", {
			completion_reason: "join_failure",
			failure_stage: "joining",
			reason: "the join button never appeared",
			diagnostics: { steps, page_state: "<b>prejoin</b>", page_text: "Ask to join\nPresent", screenshot: "failure.png" },
		});
		const ended = await expectDocumented(MeetingRecord, await call("GET", `/meetings/${meeting.id}`, { headers }));
		expect(ended).toMatchObject({ status: "failed", completion_reason: "join_failure" });
		await expectDocumented(BotStatusList, await call("GET", "/bots/status", { headers }));
		const diagnostics = ended.data.diagnostics;
		expect(diagnostics).toMatchObject({
			page_state: null,
			page_text: "Ask to join\nPresent",
			screenshot: { attempt: 1, name: "failure.png" },
		});
		expect(diagnostics?.steps).toHaveLength(30);
		expect(diagnostics?.steps.at(-1)?.step).toBe("clicked https://meet.example/x join");
		const image = await openLink(diagnostics?.screenshot_url ?? "");
		expect(image.headers.get("content-type")).toBe("image/png");
		expect(await bytesOf(image)).toEqual(pngBytes());
	});
});

describe("watchers and webhooks", () => {
	it("hear of the step to needs_help and back with data.help, and of a failure with data.diagnostics", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true, "bot.failed": true } });
		const code = meetCode();
		const meeting = await sendBot(headers, code);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await socket.waitFor("subscribed", (m) => m.type === "subscribed");
		const spawn = await spawnRequestFor(meeting.id);
		const bot = await SimulatedBot.connect(spawn);
		expect((await uploadScreenshot(spawn, "help-1.jpg", jpegBytes())).status).toBe(201);
		await bot.status("needs_help", { help: { kind: "unknown_screen", page_text: "Something new", screenshot: "help-1.jpg" } });
		await bot.status("joining");
		await bot.status("failed", {
			failure_stage: "joining",
			reason: "gave up",
			diagnostics: { steps: [], page_state: "unknown", page_text: "Still new", screenshot: "help-1.jpg" },
		});

		const frames = () => socket.messages.filter((m) => m.type === "meeting.status") as unknown as MeetingStatusFrame[];
		const stuck = await socket.waitFor<MeetingStatusFrame>(
			"needs_help frame",
			(m) => (m as unknown as MeetingStatusFrame).payload?.status === "needs_help",
		);
		expect(stuck.payload.data?.help).toMatchObject({ kind: "unknown_screen", page_text: "Something new" });
		expect(await bytesOf(await openLink(stuck.payload.data?.help?.screenshot_url ?? ""))).toEqual(jpegBytes());
		const failed = await socket.waitFor<MeetingStatusFrame>(
			"failed frame",
			(m) => (m as unknown as MeetingStatusFrame).payload?.status === "failed",
		);
		expect(failed.payload.data?.diagnostics).toMatchObject({ page_text: "Still new", screenshot: { attempt: 1, name: "help-1.jpg" } });
		expect((await openLink(failed.payload.data?.diagnostics?.screenshot_url ?? "")).status).toBe(200);
		expect(frames().find((f) => f.payload.status === "joining")?.payload.data?.help).toBeUndefined();
		socket.close();

		const envelopes = await eventually("bot.failed delivered", async () => {
			const got = (await received(hook.path)).map((r) => JSON.parse(r.body) as WebhookEnvelope);
			return got.some((e) => e.event_type === "bot.failed") ? got : undefined;
		});
		const toHelp = envelopes.find((e) => e.event_type === "meeting.status_change" && e.data.status_change?.to === "needs_help");
		const help = toHelp?.data.meeting.data.help as Help | undefined;
		expect(help).toMatchObject({ kind: "unknown_screen", page_text: "Something new" });
		expect((await openLink(help?.screenshot_url ?? "")).status).toBe(200);
		const back = envelopes.find((e) => e.event_type === "meeting.status_change" && e.data.status_change?.from === "needs_help");
		expect(back?.data.meeting.data.help).toBeUndefined();
		const botFailed = envelopes.find((e) => e.event_type === "bot.failed");
		const diagnostics = botFailed?.data.meeting.data.diagnostics as Help | undefined;
		expect(diagnostics).toMatchObject({ page_text: "Still new" });
		expect(await bytesOf(await openLink(diagnostics?.screenshot_url ?? ""))).toEqual(jpegBytes());
	});
});
