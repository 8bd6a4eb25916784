/**
 * A meeting the host ended for everyone (docs/status-machine.md#how-a-meeting-ends): the reason
 * stays the reference's `left_alone`, and `data.completion_cause: ended_by_host` says who ended
 * it, on the record and on the `/ws` status frame; a cause is kept only with a completion.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { db } from "../../../src/db";
import { meetings } from "../../../src/db/schema";
import { statusStepMessage } from "../../../src/live/feed-messages";
import { meetCode } from "../../shared/meetings";
import { call, json, userWithKey } from "../support";
import { SimulatedBot, spawnRequestFor } from "./bot-sim";
import { getMeeting, sendBot } from "./helpers";

describe("a meeting the host ended", () => {
	it("is completed, left_alone, with ended_by_host beside its reason", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("active");
		await bot.status("completed", {
			completion_reason: "left_alone",
			completion_cause: "ended_by_host",
			reason: "the host ended the meeting",
		});
		const ended = await getMeeting(headers, m.id);
		expect(ended).toMatchObject({ status: "completed", completion_reason: "left_alone", data: { completion_cause: "ended_by_host" } });
		const listed = await json<{ meetings: { id: number; data: Record<string, unknown> }[] }>(await call("GET", "/meetings", { headers }));
		expect(listed.meetings.find((x) => x.id === m.id)?.data.completion_cause).toBe("ended_by_host");
		// The /ws status frame of the step says it too, so a list that follows the feed names it without a reload.
		const row = await db(env).select().from(meetings).where(eq(meetings.id, m.id)).get();
		if (!row) throw new Error("the meeting's row is gone");
		const frame = statusStepMessage(row, {
			from: "active",
			to: "completed",
			reason: "the host ended the meeting",
			actor: "bot",
			at: row.updatedAt,
		});
		expect(frame.payload.data).toMatchObject({ completion_reason: "left_alone", completion_cause: "ended_by_host" });
	});

	it("keeps no completion cause on a meeting everyone else left, nor on a failure", async () => {
		const { headers } = await userWithKey();
		const alone = await sendBot(headers, meetCode());
		const aloneBot = await SimulatedBot.connect(await spawnRequestFor(alone.id));
		await aloneBot.status("active");
		await aloneBot.status("completed", { completion_reason: "left_alone", reason: "everyone else left" });
		expect((await getMeeting(headers, alone.id)).data.completion_cause).toBeUndefined();

		const failed = await sendBot(headers, meetCode());
		const failedBot = await SimulatedBot.connect(await spawnRequestFor(failed.id));
		await failedBot.status("joining");
		await failedBot.status("failed", { completion_reason: "join_failure", completion_cause: "ended_by_host", failure_stage: "joining" });
		expect(await getMeeting(headers, failed.id)).toMatchObject({ status: "failed", completion_reason: "join_failure" });
		expect((await getMeeting(headers, failed.id)).data.completion_cause).toBeUndefined();
	});
});
