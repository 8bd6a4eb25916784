import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sanitize } from "../../../src/meetings/failure-detail";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import { call, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received, script } from "../webhooks/receiver";
import { openSocket, ownMeetingIds, QUEUE_MESSAGES, type SocketClient, spawnRequestFor, ticketMatch } from "./bot-sim";
import { createPlan, fireTimersNow, getMeeting, liveMeeting, meetUrl, sendBot } from "./helpers";

const envelopesAt = async (path: string) => (await received(path)).map((r) => JSON.parse(r.body) as WebhookEnvelope);

function envelopesWhere(path: string, what: string, match: (all: WebhookEnvelope[]) => boolean) {
	return eventually(what, async () => {
		const all = await envelopesAt(path);
		return match(all) ? all : undefined;
	});
}

const stepsOf = (all: WebhookEnvelope[], meetingId: number) =>
	all
		.filter((e) => e.event_type === "meeting.status_change" && e.data.meeting.id === meetingId)
		.map((e) => e.data.status_change)
		.sort((a, b) => (a?.timestamp ?? "").localeCompare(b?.timestamp ?? ""));

async function subscribe(socket: SocketClient, code: string) {
	socket.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
	await socket.waitFor("subscribed", (m) => m.type === "subscribed");
}

const statusFrames = (socket: SocketClient, meetingId: number) =>
	socket.messages.filter((m) => m.type === "meeting.status" && (m.meeting as { id: number }).id === meetingId);

describe("plan-side steps", () => {
	it("send meeting.status frames and meeting.status_change webhooks for creation, scheduled ↔ idle and deletion", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		const socket = await openSocket("/ws", { "X-API-Key": key });
		const plan = await createPlan(headers, { meeting_url: meetUrl(code), scheduled_at: new Date(Date.now() + 7200_000).toISOString() });
		await subscribe(socket, code);
		const patch = (body: Record<string, unknown>) => call("PATCH", `/meetings/${plan.id}`, { headers, json: body });
		expect((await patch({ scheduled_at: null })).status).toBe(200);
		expect((await patch({ scheduled_at: new Date(Date.now() + 3600_000).toISOString() })).status).toBe(200);
		expect((await patch({ title: "same status, no step" })).status).toBe(200);
		expect((await call("DELETE", `/meetings/${plan.id}`, { headers })).status).toBe(204);

		// The steps go out in the order they were taken: with the deletion's, the last, in, none before it is still on its way.
		const all = await envelopesWhere(
			hook.path,
			"four steps, the deletion's among them",
			(list) => stepsOf(list, plan.id).length >= 4 && stepsOf(list, plan.id).some((s) => s?.to === null),
		);
		const steps = stepsOf(await envelopesAt(hook.path), plan.id);
		expect(steps.map((s) => [s?.from, s?.to, s?.transition_source])).toEqual([
			[null, "scheduled", "user_request"],
			["scheduled", "idle", "user_request"],
			["idle", "scheduled", "user_request"],
			["scheduled", null, "user_request"],
		]);
		expect(all.find((e) => e.data.status_change?.from === null)?.data.meeting).toMatchObject({ id: plan.id, status: "scheduled" });

		await eventually("the deletion frame", () =>
			statusFrames(socket, plan.id).some((m) => (m.payload as { status: string }).status === "deleted") ? true : undefined,
		);
		expect(statusFrames(socket, plan.id).map((m) => (m.payload as { status: string }).status)).toEqual(["idle", "scheduled", "deleted"]);
		socket.close();
	});

	it("announce an auto-join error as a step that stays scheduled, with the error", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "meeting.status_change": true } });
		const code = meetCode();
		await script(QUEUE_MESSAGES, [{ status: 500, body: "queue down", match: ticketMatch(await ownMeetingIds()) }]);
		const plan = await createPlan(headers, { meeting_url: meetUrl(code), scheduled_at: new Date(Date.now() + 3600_000).toISOString() });
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribe(socket, code);
		await fireTimersNow(plan.id);

		const all = await envelopesWhere(hook.path, "the auto-join error step", (list) =>
			stepsOf(list, plan.id).some((s) => s?.from === "scheduled" && s.to === "scheduled"),
		);
		const error = stepsOf(all, plan.id).find((s) => s?.to === "scheduled" && s.from === "scheduled");
		expect(error).toMatchObject({ transition_source: "auto_join", reason: expect.stringContaining("spawn queue answered 500") });
		const frame = await socket.waitFor(
			"the error frame",
			(m) => m.type === "meeting.status" && JSON.stringify(m).includes("auto_join_error"),
		);
		expect(frame.payload).toMatchObject({
			status: "scheduled",
			data: { auto_join_error: expect.stringContaining("spawn queue answered 500") },
		});
		// The claim that was given back was never announced: no frame or step says `requested`.
		expect(statusFrames(socket, plan.id).map((m) => (m.payload as { status: string }).status)).not.toContain("requested");
		expect(stepsOf(all, plan.id).map((s) => s?.to)).not.toContain("requested");
		socket.close();
	});
});

describe("what existing clients read on the record", () => {
	it("carries completion_reason and failure_stage in data too, and session_uid = the native id", async () => {
		const hook = newHook();
		const { headers } = await userWithWebhook(hook.url, { events: { "bot.failed": true } });
		const bare = await createPlan(headers, { title: "no link" });
		expect(bare).toMatchObject({ session_uid: null });
		const { meeting, bot, code } = await liveMeeting(headers);
		expect(meeting).toMatchObject({ session_uid: code });
		await bot.status("failed", { completion_reason: "evicted" });
		const failed = await getMeeting(headers, meeting.id);
		expect(failed).toMatchObject({
			session_uid: code,
			native_meeting_id: code,
			completion_reason: "evicted",
			failure_stage: "active",
			data: { completion_reason: "evicted", failure_stage: "active" },
		});
		const [envelope] = await envelopesWhere(hook.path, "bot.failed", (list) => list.length >= 1);
		expect(envelope?.data.meeting).toMatchObject({
			session_uid: code,
			data: { completion_reason: "evicted", failure_stage: "active" },
		});
	});
});

describe("every failure names itself", () => {
	it("keeps the bot's reason, made safe, in the record, the bot.failed webhook and the /ws frame", async () => {
		const hook = newHook();
		const { headers, key } = await userWithWebhook(hook.url, { events: { "bot.failed": true } });
		const { meeting, bot, code } = await liveMeeting(headers);
		const socket = await openSocket("/ws", { "X-API-Key": key });
		await subscribe(socket, code);
		const said =
			"the meeting page answered 404 at https://alice:hunter2@meet.example.com/abc?authuser=3&tok=s3cret#frag with Bearer eyJsecret.token and vxa_bot_ABCDEF123456";
		await bot.status("failed", { completion_reason: "join_failure", reason: said });

		const detail = (await getMeeting(headers, meeting.id)).data.failure_detail as string;
		expect(detail).toContain("the meeting page answered 404 at https://meet.example.com/abc");
		for (const secret of ["hunter2", "alice", "authuser", "s3cret", "frag", "eyJsecret", "ABCDEF123456"])
			expect(detail).not.toContain(secret);

		const [envelope] = await envelopesWhere(hook.path, "bot.failed", (list) => list.length >= 1);
		expect(envelope?.data.meeting.data.failure_detail).toBe(detail);
		expect(JSON.stringify(envelope)).not.toContain("hunter2");
		expect(envelope?.data.status_change?.reason).not.toContain("hunter2");
		const frame = await socket.waitFor(
			"failed frame",
			(m) => m.type === "meeting.status" && (m.payload as { status: string }).status === "failed",
		);
		expect((frame.payload as { data: Record<string, unknown> }).data.failure_detail).toBe(detail);
		socket.close();
	});

	it("names the lost host, the unplaced meeting and the queue's refusal; a stopped meeting names no failure", async () => {
		const { headers } = await userWithKey();
		const silent = await sendBot(headers, meetCode());
		await spawnRequestFor(silent.id);
		await fireTimersNow(silent.id);
		expect((await getMeeting(headers, silent.id)).data.failure_detail).toBe(
			"the bot did not connect within 5 s of its claim (bot host test-host)",
		);

		const unplaced = await sendBot(headers, meetCode());
		await fireTimersNow(unplaced.id);
		expect((await getMeeting(headers, unplaced.id)).data.failure_detail).toMatch(
			// What it waited on at the end follows (test/worker/bots/placement-wait.test.ts).
			/^no bot host took the meeting within 180 s; at the end: ./,
		);

		await script(QUEUE_MESSAGES, [{ status: 500, body: "queue down", match: ticketMatch(await ownMeetingIds()) }]);
		const refused = await sendBot(headers, meetCode());
		// Polled in D1, not through the API: this test's earlier calls leave little of the rate limit.
		await eventually("refused spawn fails the meeting", async () => {
			const row = await env.DB.prepare("SELECT status FROM meetings WHERE id = ?").bind(refused.id).first<{ status: string }>();
			return row?.status === "failed" ? true : undefined;
		});
		expect((await getMeeting(headers, refused.id)).data.failure_detail).toBe("the spawn queue answered 500");

		const { meeting, bot, code: liveCode } = await liveMeeting(headers);
		await call("DELETE", `/bots/google_meet/${liveCode}`, { headers });
		await bot.status("completed");
		const stopped = await getMeeting(headers, meeting.id);
		expect(stopped.status).toBe("completed");
		expect(stopped.data).not.toHaveProperty("failure_detail");
	});

	it("sanitises once: no credentials, query, fragment or token survives, and the text is bounded", () => {
		expect(sanitize("see https://u:p@h.example/x?y=1#z and token=abc123")).toBe("see https://h.example/x and token=[redacted]");
		expect(sanitize(`x${"y".repeat(5000)}`).length).toBeLessThanOrEqual(500);
		expect(sanitize("a\u0000b\nc")).toBe("a b c");
	});
});
