/** Asking to join, without a browser: again when the page offers Join again, never past the join deadline. */
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { SpawnRequest } from "../../src/bot-channel/protocol.ts";
import { Evidence } from "../bot/evidence.ts";
import { JoinAttempts } from "../bot/joining.ts";
import type { MeetingDriver, PageInput } from "../drivers/types.ts";

const request = SpawnRequest.parse({
	meeting_id: 1,
	platform: "teams",
	native_meeting_id: "8000000001",
	meeting_url: "https://teams.microsoft.com/meet/8000000001",
	passcode: null,
	bot_name: "Notetaker",
	transcription: null,
	channel: { url: "ws://127.0.0.1:1/bots/1", token: "channel-token-for-tests" },
	screenshot_upload_url: "http://127.0.0.1:1/screenshots/1",
});
const page = {} as Page;

function attempts(offered: () => boolean) {
	let t = 0;
	let joins = 0;
	const driver = {
		join: async () => {
			joins++;
		},
		joinOffered: async () => offered(),
	} as unknown as MeetingDriver;
	const evidence = new Evidence({ request, now: () => t, log: () => {} });
	const input = { kind: "devtools" } as PageInput;
	const joining = new JoinAttempts({ driver, request, evidence, input, timeoutMs: 10_000, now: 0 });
	return {
		joining,
		evidence,
		joins: () => joins,
		at: (ms: number) => {
			t = ms;
			return () => t;
		},
	};
}

describe("asking to join", () => {
	it("asks once while the page does not offer Join again", async () => {
		const a = attempts(() => false);
		for (const ms of [0, 3_000, 6_000, 9_000]) await a.joining.onPrejoin(page, a.at(ms));
		expect(a.joins()).toBe(1);
	});

	it("asks again when the pre-join offers Join after the request, a few seconds apart, and says so", async () => {
		const a = attempts(() => true);
		for (const ms of [0, 1_000, 3_000, 4_000, 6_000]) await a.joining.onPrejoin(page, a.at(ms));
		expect(a.joins()).toBe(3);
		expect(a.evidence.log.steps.map((s) => s.step)).toContain("the join screen offers Join again: asking again");
	});

	it("does not buy time by asking again: a page that keeps offering Join times out from the first request", async () => {
		const a = attempts(() => true);
		for (let ms = 0; ms <= 9_000; ms += 3_000) await a.joining.onPrejoin(page, a.at(ms));
		expect(a.joining.timedOut(9_999, "prejoin")).toBeNull();
		expect(a.joining.timedOut(10_000, "prejoin")).toMatchObject({
			completion_reason: "join_failure",
			reason: "no lobby or call within 10 s of asking to join (page: prejoin)",
		});
	});
});
