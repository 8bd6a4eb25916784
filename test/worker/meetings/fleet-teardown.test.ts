/**
 * A bot the fleet takes away ends as the spec's States table says for a workload torn down:
 * `join_failure` while `requested` or `joining`, `awaiting_admission_timeout` while
 * `awaiting_admission` (both retryable), with the fleet's cause in `data.failure_cause` and its
 * sentence in `data.failure_detail` (docs/status-machine.md#when-the-fleet-ends-a-meeting).
 * Bot hosts of earlier releases are read in this release's words.
 */
import { describe, expect, it } from "vitest";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { fireTimersNow, getMeeting, roomTimers, sendBot } from "./helpers";

describe("a bot the fleet takes away", () => {
	it("fails join_failure with failure_cause bot_host_lost when a claimed bot never connects", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		await spawnRequestFor(m.id);
		await fireTimersNow(m.id);
		expect(await getMeeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "requested",
			data: {
				failure_cause: "bot_host_lost",
				failure_detail: "the bot did not connect within 5 s of its claim (bot host test-host)",
			},
		});
	});

	it("fails join_failure with failure_cause bot_host_lost when a joining bot loses its channel", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("joining");
		bot.channel.close();
		await eventually("grace timer", async () => ((await roomTimers(m.id)).timers.watchdog ? true : undefined));
		await fireTimersNow(m.id);
		expect(await getMeeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "join_failure",
			failure_stage: "joining",
			data: { failure_cause: "bot_host_lost" },
		});
	});

	it("fails awaiting_admission_timeout with failure_cause bot_host_lost when a bot waiting in the lobby loses its channel", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("joining");
		await bot.status("awaiting_admission");
		bot.channel.close();
		await eventually("grace timer", async () => ((await roomTimers(m.id)).timers.watchdog ? true : undefined));
		await fireTimersNow(m.id);
		expect(await getMeeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_timeout",
			failure_stage: "awaiting_admission",
			data: {
				failure_cause: "bot_host_lost",
				failure_detail: "the bot's channel stayed closed for more than 30 s (bot host test-host)",
			},
		});
	});

	it("fails a bot whose host shut down in the lobby awaiting_admission_timeout, with failure_cause host_drained", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("awaiting_admission");
		await bot.status("failed", {
			failure_cause: "host_drained",
			failure_stage: "awaiting_admission",
			reason: "the bot host was stopped before the meeting ended",
		});
		expect(await getMeeting(headers, m.id)).toMatchObject({
			status: "failed",
			completion_reason: "awaiting_admission_timeout",
			data: { failure_cause: "host_drained", failure_detail: "the bot host was stopped before the meeting ended" },
		});
	});

	it.each([
		["host_drained", "joining", { status: "failed", completion_reason: "join_failure", data: { failure_cause: "host_drained" } }],
		["rejected", "awaiting_admission", { status: "failed", completion_reason: "awaiting_admission_rejected" }],
		["meeting_ended", "active", { status: "completed", completion_reason: "left_alone", data: { completion_cause: "ended_by_host" } }],
	])("reads an older bot host's %s in this release's words", async (legacy, stage, expected) => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status(stage);
		await bot.status(expected.status, { completion_reason: legacy, reason: "said by an older bot host" });
		const ended = await getMeeting(headers, m.id);
		expect(ended).toMatchObject(expected);
		if (expected.status === "completed") expect(ended.data.failure_cause).toBeUndefined();
	});
});
