/** The parts of asking for help and of failure diagnostics that need no browser: the step log, the page text, the grace, the sandbox's screen clock. */
import { describe, expect, it } from "vitest";
import { DIAGNOSTIC_STEP_MAX, DIAGNOSTIC_STEPS_MAX, DriverStep, PAGE_TEXT_MAX } from "../../src/bot-channel/help-report.ts";
import { HelpWatch, helpKindOf } from "../bot/help.ts";
import { reportablePageText, StepLog } from "../bot/step-log.ts";
import { SandboxMeeting, Scenario } from "../sandbox/scenario.ts";

describe("the step log", () => {
	it("keeps the newest steps, each within the channel's limit", () => {
		let t = Date.parse("2026-11-26T01:00:00Z");
		const log = new StepLog({ now: () => t, secrets: [] });
		for (let i = 1; i <= 100; i++) {
			t += 1_000;
			log.add(`step ${i} ${"x".repeat(i === 100 ? 5_000 : 0)}`);
		}
		const steps = log.steps;
		expect(steps).toHaveLength(DIAGNOSTIC_STEPS_MAX);
		expect(steps[0]?.step).toBe(`step ${100 - DIAGNOSTIC_STEPS_MAX + 1}`);
		expect(steps.at(-1)?.step).toHaveLength(DIAGNOSTIC_STEP_MAX);
		expect(steps.at(-1)?.step.endsWith("…")).toBe(true);
		for (const step of steps) expect(DriverStep.safeParse(step).success).toBe(true);
		expect(steps.at(-1)?.at).toBe(new Date(t).toISOString());
	});

	it("never keeps a passcode, a token, a link's query or a control character", () => {
		const log = new StepLog({ now: () => 0, secrets: ["s3cretpass", "tok-abc", null] });
		log.add("opening the meeting page https://app.zoom.us/wc/123/join?pwd=s3cretpass&x=1");
		log.add("typed s3cretpass with token tok-abc\u0007\u001b[31m");
		log.add("   ");
		expect(log.steps.map((s) => s.step)).toEqual([
			"opening the meeting page https://app.zoom.us/wc/123/join",
			"typed *** with token *** [31m",
		]);
	});
});

describe("the page text a bot reports", () => {
	it("collapses spaces, keeps line breaks, strips links' queries and secrets, and fits PAGE_TEXT_MAX", () => {
		const text = reportablePageText("  Before   you join\r\n\r\n\tSee https://example.com/policy?token=abc#frag  now\u0000 code s3cret ", [
			"s3cret",
		]);
		expect(text).toBe("Before you join\nSee https://example.com/policy now code ***");
		const long = reportablePageText("word ".repeat(2_000), []);
		expect(long).toHaveLength(PAGE_TEXT_MAX);
	});
});

describe("when a bot asks for help", () => {
	it("names what the page shows as a reason for help, and nothing for a screen it knows", () => {
		expect(helpKindOf("unknown", false)).toBe("unknown_screen");
		expect(helpKindOf("bot_wall", false)).toBe("captcha");
		expect(helpKindOf("sign_in_required", false)).toBe("sign_in_required");
		expect(helpKindOf("prejoin", true)).toBe("layout_changed");
		for (const known of ["prejoin", "lobby", "in_call"] as const) expect(helpKindOf(known, false)).toBeNull();
	});

	it("asks once after the grace, counts a changing screen as one episode, and recovers once", () => {
		const help = new HelpWatch(10_000);
		expect(help.observe("unknown_screen", 0)).toBeNull();
		expect(help.observe("captcha", 9_999)).toBeNull();
		expect(help.observe("captcha", 10_000)).toBe("ask");
		expect(help.asking).toBe("captcha");
		expect(help.observe("unknown_screen", 60_000)).toBeNull();
		expect(help.observe(null, 61_000)).toBe("recovered");
		expect(help.asking).toBeNull();
		expect(help.observe(null, 62_000)).toBeNull();
		// A short blip (a page loading) never asks.
		expect(help.observe("unknown_screen", 63_000)).toBeNull();
		expect(help.observe(null, 64_000)).toBeNull();
		expect(help.observe("unknown_screen", 65_000)).toBeNull();
		expect(help.observe("unknown_screen", 74_999)).toBeNull();
	});
});

describe("the sandbox's interstitial and changed layout", () => {
	it("shows the interstitial from the page's first opening until interstitial_ms, or until cleared", () => {
		let t = 1_000;
		const timed = new SandboxMeeting("m1", Scenario.parse({ interstitial: true, interstitial_ms: 5_000 }), () => t);
		expect(timed.prejoinScreen()).toEqual({ interstitial: true, layout_changed: false, host_started: true });
		t = 50_000;
		expect(timed.prejoinScreen(true).interstitial).toBe(true);
		t = 54_999;
		expect(timed.prejoinScreen(true).interstitial).toBe(true);
		t = 55_000;
		expect(timed.prejoinScreen().interstitial).toBe(false);

		const held = new SandboxMeeting("m2", Scenario.parse({ interstitial: true, layout_changed: true }), () => t);
		t = 1_000_000;
		expect(held.prejoinScreen(true)).toEqual({ interstitial: true, layout_changed: true, host_started: true });
		held.clearInterstitial();
		expect(held.prejoinScreen()).toEqual({ interstitial: false, layout_changed: true, host_started: true });
		held.restoreLayout();
		expect(held.prejoinScreen()).toEqual({ interstitial: false, layout_changed: false, host_started: true });
		expect(new SandboxMeeting("m3", Scenario.parse({}), () => t).prejoinScreen(true)).toEqual({
			interstitial: false,
			layout_changed: false,
			host_started: true,
		});
	});
});

describe("the sandbox's captions no driver can read", () => {
	it("tell each attendee's page until restore_captions, and never unless the scenario asks", () => {
		const meeting = new SandboxMeeting("m4", Scenario.parse({ captions_unreadable: true, direct_join: true }), () => 0);
		const bot = meeting.ask("Bot", "zoom", false, false, null);
		expect(meeting.viewOf(bot)).toEqual({ phase: "in_call", captions_unreadable: true });
		meeting.restoreCaptions();
		expect(meeting.viewOf(bot)).toEqual({ phase: "in_call", captions_unreadable: false });
		const plain = new SandboxMeeting("m5", Scenario.parse({}), () => 0);
		expect(plain.viewOf(plain.ask("Bot", "teams", false, false, null))).toEqual({ phase: "lobby", captions_unreadable: false });
	});
});
