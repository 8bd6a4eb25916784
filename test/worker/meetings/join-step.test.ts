/**
 * Where a bot's join stopped (docs/bot-fleet.md#join-health), over the real bot channel: the
 * `join_step` a bot sends with a help request or a failure is kept in `data.join_step`, a step
 * outside the list is refused with the message, a bot of an earlier release that sends none is
 * read as before, and no caller can write the key with PATCH.
 */
import { describe, expect, it } from "vitest";
import { MeetingRecord } from "../../../src/routes/meeting-schemas";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, expectDocumented, userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { fireTimersNow, getMeeting, sendBot } from "./helpers";

async function joiningBot(headers: Record<string, string>, code = meetCode()) {
	const meeting = await sendBot(headers, code);
	const bot = await SimulatedBot.connect(await spawnRequestFor(meeting.id));
	await bot.status("joining");
	return { meeting, bot, code };
}

describe("a bot's join step", () => {
	it("is kept with a failure, as the meeting record documents it", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await joiningBot(headers);
		await bot.status("failed", { completion_reason: "join_failure", failure_stage: "joining", join_step: "ask_to_join" });
		const ended = await expectDocumented(MeetingRecord, await call("GET", `/meetings/${meeting.id}`, { headers }));
		expect(ended).toMatchObject({ status: "failed", completion_reason: "join_failure", data: { join_step: "ask_to_join" } });
	});

	it("sent with a help request, stays when the help timer fails the meeting", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await joiningBot(headers);
		await bot.status("needs_help", { help: { kind: "layout_changed", page_text: "", screenshot: null }, join_step: "prejoin" });
		await fireTimersNow(meeting.id);
		const ended = await eventually("the meeting to fail", async () => {
			const m = await getMeeting(headers, meeting.id);
			return m.status === "failed" ? m : undefined;
		});
		expect(ended.data).toMatchObject({ failure_cause: "help_timeout", join_step: "prejoin" });
	});

	it("is absent for a bot of an earlier release, whose failure is taken as before", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await joiningBot(headers);
		await bot.status("failed", { completion_reason: "join_failure", failure_stage: "joining" });
		const ended = await getMeeting(headers, meeting.id);
		expect(ended).toMatchObject({ status: "failed", completion_reason: "join_failure" });
		expect(ended.data.join_step).toBeUndefined();
	});

	it("outside the list is refused with its message: the meeting does not move and keeps no step", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot } = await joiningBot(headers);
		for (const step of ["clicked_join", "x".repeat(5_000), 3]) {
			bot.channel.send({ type: "status", seq: 99, status: "failed", join_step: step, timestamp: new Date().toISOString() });
			await bot.channel.waitFor(`the refusal of ${String(step).slice(0, 20)}`, (m) => m.type === "error");
			bot.channel.messages.length = 0;
		}
		const still = await getMeeting(headers, meeting.id);
		expect(still.status).toBe("joining");
		expect(still.data.join_step).toBeUndefined();
	});

	it("is not the caller's to write: PATCH leaves data.join_step as the bot reported it", async () => {
		const { headers } = await userWithKey();
		const { meeting, bot, code } = await joiningBot(headers);
		await bot.status("failed", { completion_reason: "join_failure", join_step: "lobby" });
		const patched = await call("PATCH", `/meetings/google_meet/${code}`, { headers, json: { data: { join_step: "in_call", note: "x" } } });
		expect(patched.status).toBe(200);
		expect((await getMeeting(headers, meeting.id)).data).toMatchObject({ join_step: "lobby", note: "x" });
	});
});
