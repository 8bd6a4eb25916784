/**
 * Limits that protect the bot fleet: bounded `automatic_leave` timeouts on POST /bots, and a
 * meeting no host has room for ended `join_failure` (the spec's reason for a workload torn down
 * before joining) with `data.failure_cause: no_bot_capacity` and a sentence saying so.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { AUTOMATIC_LEAVE_MAX_MS } from "../../../src/bot-channel/protocol";
import { type Meeting, meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { claimAttempt, openSocket, publishedTicket, spawnRequestFor } from "../meetings/bot-sim";
import { fireTimersNow } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received } from "../webhooks/receiver";

const sendBot = (headers: Record<string, string>, body: Record<string, unknown>) => call("POST", "/bots", { headers, json: body });

describe("automatic_leave maxima", () => {
	it.each(Object.entries(AUTOMATIC_LEAVE_MAX_MS))("refuses %s above %d ms with 422 and creates nothing", async (field, max) => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code, automatic_leave: { [field]: max + 1 } });
		expect(res.status).toBe(422);
		const body = await json<{ detail: { loc: unknown[]; msg: string }[] }>(res);
		expect(JSON.stringify(body.detail)).toContain(field);
		expect(JSON.stringify(body.detail)).toContain(`at most ${max} ms`);
		const list = await json<{ meetings: unknown[] }>(await call("GET", "/meetings", { headers }));
		expect(list.meetings).toEqual([]);
		const rows = await env.DB.prepare("SELECT count(*) AS n FROM meetings WHERE native_meeting_id = ?").bind(code).first<{ n: number }>();
		expect(rows?.n).toBe(0);
	});

	it("accepts every field at its maximum and hands it to the claiming host", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const res = await sendBot(headers, { platform: "google_meet", native_meeting_id: code, automatic_leave: AUTOMATIC_LEAVE_MAX_MS });
		expect(res.status).toBe(201);
		const spawn = await spawnRequestFor((await json<Meeting>(res)).id);
		expect(spawn.automatic_leave).toEqual(AUTOMATIC_LEAVE_MAX_MS);
	});
});

describe("a fleet with no free slot", () => {
	it("fails the meeting join_failure, cause no_bot_capacity, when no host claims it within the placement timeout", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "bot.failed": true, "meeting.status_change": true } });
		const code = meetCode();
		const m = await json<Meeting>(await sendBot(headers, { platform: "google_meet", native_meeting_id: code }));
		const watcher = await openSocket("/ws", { "X-API-Key": key });
		watcher.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await watcher.waitFor("subscribed", (msg) => msg.type === "subscribed");
		// POST /bots answers before the room publishes: a ticket published after the timer is zeroed would be born expired.
		const ticket = await publishedTicket(m.id);
		await fireTimersNow(m.id);
		const failed = await eventually("failed", async () => {
			const now = await json<Meeting>(await call("GET", `/meetings/${m.id}`, { headers }));
			return now.status === "failed" ? now : undefined;
		});
		// The sentence ends with what it waited on at the end (the fleet's reports: test/worker/bots/placement-wait.test.ts).
		const detail = String(failed.data.failure_detail);
		expect(detail).toMatch(/^no bot host took the meeting within 180 s; at the end: ./);
		expect(failed).toMatchObject({
			completion_reason: "join_failure",
			failure_stage: "requested",
			data: { failure_cause: "no_bot_capacity", failure_detail: detail },
		});
		// The sentence travels with the step to failed (webhooks, live feed), and bot.failed carries the spec's reason.
		const events = await eventually("the failed step and bot.failed", async () => {
			const bodies = (await received(hook.path)).map((r) => JSON.parse(r.body));
			const step = bodies.find((b) => b.event_type === "meeting.status_change" && b.data?.status_change?.to === "failed");
			const botFailed = bodies.find((b) => b.event_type === "bot.failed");
			return step && botFailed ? { step, botFailed } : undefined;
		});
		expect(events.step.data.status_change.reason).toBe(detail);
		expect(events.botFailed.data.meeting).toMatchObject({
			completion_reason: "join_failure",
			data: { failure_cause: "no_bot_capacity" },
		});
		// The live feed's frame names the spec's reason, the fleet's cause and the sentence.
		const frame = await watcher.waitFor<{ payload: { data: Record<string, unknown> } }>(
			"the failed frame",
			(msg) => msg.type === "meeting.status" && (msg.payload as { status: string }).status === "failed",
		);
		expect(frame.payload.data).toEqual({
			reason: detail,
			completion_reason: "join_failure",
			failure_detail: detail,
			failure_cause: "no_bot_capacity",
		});
		watcher.close();
		// A host that pulls the ticket late is told the meeting no longer wants a bot.
		expect((await claimAttempt(m.id, 1, "test-host", undefined, ticket)).body).toMatchObject({ reason: "ended" });
	});
});
