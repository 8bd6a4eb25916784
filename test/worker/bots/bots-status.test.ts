/**
 * GET /bots/status shows a bot that failed, with why, for a bounded time after it ended: POST
 * /bots never reports a failed join, so this is where a caller learns of it.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { REASON_OUTCOME as PROTOCOL_TABLE } from "../../../src/bot-channel/protocol";
import { FAILED_BOT_SHOWN_MS, FAILED_BOTS_SHOWN } from "../../../src/bots/bot-control";
import { REASON_OUTCOME as MACHINE_TABLE } from "../../../src/meetings/status-machine";
import { meetCode } from "../../shared/meetings";
import { eventually, until } from "../../shared/wait";
import { ownMeetingIds, QUEUE_MESSAGES, SimulatedBot, spawnRequestFor, ticketMatch } from "../meetings/bot-sim";
import { createPlan, getMeeting, meetUrl, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { script } from "../webhooks/receiver";

interface BotStatus {
	meeting_id: number;
	created_at: string;
	native_meeting_id: string;
	status: string;
	completion_reason: string | null;
	failure_stage: string | null;
	end_time: string | null;
	data?: Record<string, unknown>;
}

const botsStatus = async (headers: Record<string, string>) => {
	const res = await call("GET", "/bots/status", { headers });
	expect(res.status).toBe(200);
	return (await json<{ running_bots: BotStatus[] }>(res)).running_bots;
};

/** A failed meeting as the room leaves it, written straight to D1 (only its end time matters here). */
async function insertFailed(userId: number, endedAt: Date): Promise<number> {
	const code = meetCode();
	const at = endedAt.toISOString();
	const row = await env.DB.prepare(
		"INSERT INTO meetings (user_id, platform, native_meeting_id, constructed_meeting_url, status, completion_reason, failure_stage, end_time, created_at, updated_at) VALUES (?, 'google_meet', ?, ?, 'failed', 'join_failure', 'joining', ?, ?, ?) RETURNING id",
	)
		.bind(userId, code, meetUrl(code), at, at, at)
		.first<{ id: number }>();
	return row?.id ?? 0;
}

describe("GET /bots/status after a bot failed", () => {
	it("lists a bot the host removed, failed with evicted at the active stage, next to the running ones", async () => {
		const { headers } = await userWithKey("bot,tx", { max_concurrent_bots: 2 });
		const evicted = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(evicted.id));
		await bot.status("active");
		// What the bot host sends when the host removes it: the ending table says failed.
		await bot.status("failed", { completion_reason: "evicted", reason: "removed from the meeting" });
		const running = await sendBot(headers, meetCode());

		const listed = await botsStatus(headers);
		expect(listed.map((b) => [b.meeting_id, b.status])).toEqual([
			[running.id, "requested"],
			[evicted.id, "failed"],
		]);
		expect(listed[1]).toMatchObject({
			native_meeting_id: evicted.native_meeting_id,
			completion_reason: "evicted",
			failure_stage: "active",
			data: { completion_reason: "evicted", failure_stage: "active" },
		});
		expect(listed[1]?.end_time).not.toBeNull();
		expect(listed[0]).toMatchObject({ completion_reason: null, failure_stage: null });
		expect(listed[0]?.data).toBeUndefined();
		// The bot's report and the room's record agree because both read one table.
		expect(MACHINE_TABLE).toBe(PROTOCOL_TABLE);
		expect(PROTOCOL_TABLE.evicted).toBe("failed");
	});

	it("lists a bot whose spawn ticket the queue refused, with the detail the room stored", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		await script(QUEUE_MESSAGES, [{ status: 500, body: "queue down", match: ticketMatch(await ownMeetingIds()) }]);
		const m = await sendBot(headers, code);
		await eventually("failed", async () => ((await getMeeting(headers, m.id)).status === "failed" ? true : undefined));
		// data.failure_detail is the human cause the room keeps with a failed meeting; shown as kept.
		await env.DB.prepare("UPDATE meetings SET data = json_set(data, '$.failure_detail', ?) WHERE id = ?")
			.bind("the spawn queue answered 500", m.id)
			.run();

		expect(await botsStatus(headers)).toEqual([
			expect.objectContaining({
				meeting_id: m.id,
				status: "failed",
				completion_reason: "join_failure",
				failure_stage: "requested",
				data: { completion_reason: "join_failure", failure_stage: "requested", failure_detail: "the spawn queue answered 500" },
			}),
		]);
	});

	it("shows failures for a bounded time and a bounded count, newest first, and nothing ended otherwise", async () => {
		const { headers, user } = await userWithKey();
		const now = Date.now();
		const old = await insertFailed(user.id, new Date(now - FAILED_BOT_SHOWN_MS - 60_000));
		const recent: number[] = [];
		for (let i = 0; i < FAILED_BOTS_SHOWN + 3; i++) recent.push(await insertFailed(user.id, new Date(now - 60_000 - i * 1_000)));
		// A meeting that ended well, and another user's failure, are not this list's.
		const done = await sendBot(headers, meetCode());
		await (await SimulatedBot.connect(await spawnRequestFor(done.id))).status("completed", { completion_reason: "stopped" });
		const other = await userWithKey();
		await insertFailed(other.user.id, new Date(now - 1_000));

		const listed = (await botsStatus(headers)).map((b) => b.meeting_id);
		expect(listed).toEqual(recent.slice(0, FAILED_BOTS_SHOWN));
		expect(listed).not.toContain(old);
		expect(FAILED_BOT_SHOWN_MS).toBe(10 * 60_000);
	});

	it("gives each bot's created_at as its meeting's creation time, not its last update", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const plan = await createPlan(headers, { meeting_url: meetUrl(code) });
		// The bot claims the plan later: the record's updated_at moves on, its created_at stays.
		await until("the clock past the plan's creation", () => Date.now() > Date.parse(plan.created_at));
		const sent = await sendBot(headers, code);
		expect(sent.id).toBe(plan.id);
		const meeting = await getMeeting(headers, plan.id);
		expect(meeting.updated_at).not.toBe(plan.created_at);

		const [listed] = await botsStatus(headers);
		expect(listed?.meeting_id).toBe(plan.id);
		expect(listed?.created_at).toBe(plan.created_at);
		expect(listed?.created_at).toBe(meeting.created_at);
	});
});
