/**
 * How a bot is placed (docs/bot-fleet.md#how-a-bot-is-placed): the room publishes a ticket per
 * attempt, the first host to claim the current attempt gets its spawn request, the placement
 * timer and the watchdog after a claim name what went wrong, and a respawn continues the same
 * meeting. The tests play the host: they claim through SELF, which reaches this file's rooms.
 */
import { createExecutionContext, env, runDurableObjectAlarm, runInDurableObject, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { signChannelToken } from "../../../src/bot-channel/channel-token";
import { ROOM_CLOSE } from "../../../src/bot-channel/protocol";
import type { Env } from "../../../src/env";
import worker from "../../../src/index";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import {
	claimAttempt,
	eventually,
	openSocket,
	ownMeetingIds,
	QUEUE_MESSAGES,
	SimulatedBot,
	spawnRequestFor,
	ticketMatch,
	ticketsFor,
} from "../meetings/bot-sim";
import { swapEnv } from "../meetings/broken-env";
import { createPlan, fireTimersNow, getMeeting, meetCode, meetUrl, roomOf, roomTimers, segment, sendBot } from "../meetings/helpers";
import { call, json, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received, script } from "../webhooks/receiver";

const CLAIMS = "https://gateway.test/internal/bot-hosts/claims";

function postClaim(body: string, headers: Record<string, string> = { authorization: `Bearer ${env.BOT_HOST_SECRET}` }) {
	return SELF.fetch(CLAIMS, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
}

/** Opens a bot channel with a token; the Response tells whether the room took it. */
function openChannel(meetingId: number, token: string) {
	return SELF.fetch(`https://gateway.test/internal/bot-channel/${meetingId}`, {
		headers: { Upgrade: "websocket", Authorization: `Bearer ${token}` },
	});
}

/** Fires the room's watchdog alone (a host partitioned while its socket still looks open to the room). */
async function fireWatchdog(id: number) {
	await runInDurableObject(roomOf(id), async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>("timers")) ?? {};
		await state.storage.put("timers", { ...timers, watchdog: 0 });
		await state.storage.setAlarm(Date.now());
	});
	await runDurableObjectAlarm(roomOf(id));
}

describe("POST /internal/bot-hosts/claims", () => {
	it("gives the current attempt to the first claimer only; a second claim is taken, another attempt stale", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const first = await claimAttempt(m.id, 1, "host-a");
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({ meeting_id: m.id, attempt: 1, channel: { url: `wss://gateway.test/internal/bot-channel/${m.id}` } });
		expect(String((first.body.channel as { token: string }).token)).toMatch(new RegExp(`^${m.id}\\.1\\.\\d+\\.[0-9a-f]{64}$`));
		const second = await claimAttempt(m.id, 1, "host-b");
		expect(second).toEqual({ status: 409, body: { detail: "attempt 1 is already claimed", reason: "taken" } });
		const stale = await claimAttempt(m.id, 2, "host-b");
		expect(stale).toMatchObject({ status: 409, body: { reason: "stale" } });
		// The claim moved the room from the placement deadline to the watchdog: the bot must now connect.
		const { timers } = await roomTimers(m.id);
		expect(Object.keys(timers)).toEqual(["watchdog"]);
	});

	it("answers ended for a stopped meeting and for a meeting id no room holds", async () => {
		const { headers } = await userWithKey();
		const code = meetCode();
		const m = await sendBot(headers, code);
		expect((await call("DELETE", `/bots/google_meet/${code}`, { headers })).status).toBe(204);
		expect(await claimAttempt(m.id)).toEqual({ status: 409, body: { detail: "the meeting no longer wants a bot", reason: "ended" } });
		expect(await claimAttempt(987_654_321)).toMatchObject({ status: 409, body: { reason: "ended" } });
	});

	it("refuses a missing or wrong secret with 401, and answers 503 when no secret is configured", async () => {
		const body = JSON.stringify({ meeting_id: 1, attempt: 1, host_id: "h", version: "1" });
		const wrong: Record<string, string>[] = [{}, { authorization: "Bearer nope" }, { authorization: `Basic ${env.BOT_HOST_SECRET}` }];
		for (const headers of wrong) {
			const res = await postClaim(body, headers);
			expect(res.status).toBe(401);
			const text = await res.text();
			expect(JSON.parse(text)).toEqual({ detail: "Invalid or missing bearer token" });
			expect(text).not.toContain(String(env.BOT_HOST_SECRET));
		}
		const ctx = createExecutionContext();
		const request = new Request<unknown, IncomingRequestCfProperties>(CLAIMS, {
			method: "POST",
			headers: { authorization: "Bearer anything" },
			body,
		});
		const res = await worker.fetch(request, { ...env, BOT_HOST_SECRET: undefined } as Env, ctx);
		await waitOnExecutionContext(ctx);
		expect(res.status).toBe(503);
		expect(await res.json()).toEqual({ detail: "BOT_HOST_SECRET is not configured" });
	});

	it("refuses a bad body with 422 field errors and claims nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const bad = [
			"not json",
			JSON.stringify({ meeting_id: m.id, attempt: 1, version: "1" }),
			JSON.stringify({ meeting_id: m.id, attempt: 0, host_id: "h", version: "1" }),
			JSON.stringify({ meeting_id: m.id, attempt: 1, host_id: "a host/with spaces", version: "1" }),
			JSON.stringify({ meeting_id: "1", attempt: 1, host_id: "h", version: "1" }),
		];
		for (const body of bad) {
			const res = await postClaim(body);
			expect(res.status).toBe(422);
			const { detail } = await json<{ detail: { loc: unknown[]; msg: string }[] }>(res);
			expect(detail[0]?.loc[0]).toBe("body");
		}
		expect((await claimAttempt(m.id)).status).toBe(200);
	});
});

describe("the channel token of an attempt", () => {
	it("is refused with 409 at the upgrade unless its attempt is the claimed current one", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const secretsKey = String(env.SECRETS_KEY);
		// Attempt 1 is not claimed yet: its token (made here with the deployment's key) is not let in.
		expect((await openChannel(m.id, await signChannelToken(secretsKey, m.id, 1, 3600))).status).toBe(409);
		const spawn = await spawnRequestFor(m.id);
		const future = await openChannel(m.id, await signChannelToken(secretsKey, m.id, 2, 3600));
		expect(future.status).toBe(409);
		expect(future.webSocket).toBeNull();
		const current = await openChannel(m.id, spawn.channel.token);
		expect(current.status).toBe(101);
		current.webSocket?.accept();
		current.webSocket?.close(1000, "done");
	});
});

describe("a lost bot host", () => {
	it("fails the meeting bot_host_lost once the channel stays gone past the grace, releases the slot and sends bot.failed", async () => {
		const hook = newHook();
		const { headers, user } = await userWithWebhook(hook.url, { events: { "bot.failed": true } });
		await env.DB.prepare("UPDATE users SET max_concurrent_bots = 1 WHERE id = ?").bind(user.id).run();
		const m = await sendBot(headers, meetCode());
		const bot = await SimulatedBot.connect(await spawnRequestFor(m.id));
		await bot.status("active");
		bot.channel.close();
		await eventually("the grace timer", async () => ((await roomTimers(m.id)).timers.watchdog ? true : undefined));
		await fireTimersNow(m.id);
		const failed = await getMeeting(headers, m.id);
		expect(failed).toMatchObject({ status: "failed", completion_reason: "bot_host_lost", failure_stage: "active" });
		expect(failed.data.failure_detail).toBe("the bot's channel stayed closed for more than 30 s (bot host test-host)");
		const envelope = await eventually("bot.failed", async () =>
			(await received(hook.path)).map((r) => JSON.parse(r.body) as WebhookEnvelope).find((e) => e.event_type === "bot.failed"),
		);
		expect(envelope.data.meeting).toMatchObject({ id: m.id, data: { completion_reason: "bot_host_lost" } });
		// The slot is free again: another bot starts.
		expect((await call("POST", "/bots", { headers, json: { platform: "google_meet", native_meeting_id: meetCode() } })).status).toBe(201);
	});
});

describe("a respawn (BOT_MAX_RESPAWNS = 1)", () => {
	it("asks for attempt 2, closes attempt 1 with 4409 and refuses its token, and continues the same transcript from seq 1", async () => {
		const { headers, key } = await userWithKey();
		const code = meetCode();
		await ownMeetingIds();
		const m = await sendBot(headers, code);
		const watcher = await openSocket("/ws", { "X-API-Key": key });
		watcher.send({ action: "subscribe", meetings: [{ platform: "google_meet", native_id: code }] });
		await watcher.waitFor("subscribed", (msg) => msg.type === "subscribed");
		const restore = await swapEnv(roomOf(m.id), () => ({ BOT_MAX_RESPAWNS: "1" }));
		try {
			const first = await SimulatedBot.connect(await spawnRequestFor(m.id));
			await first.status("active");
			await first.send({ type: "segment", segment: segment({ segment_id: "a-1", text: "before the loss" }) });
			await fireWatchdog(m.id);

			await eventually("attempt 1's channel closed", () => first.channel.closed);
			expect(first.channel.closed?.code).toBe(ROOM_CLOSE.superseded);
			const tickets = await eventually("the attempt 2 ticket", async () => {
				const all = await ticketsFor(m.id);
				return all.some((t) => t.attempt === 2) ? all : undefined;
			});
			expect(tickets.map((t) => t.attempt)).toEqual([1, 2]);
			const kept = await getMeeting(headers, m.id);
			expect(kept).toMatchObject({ status: "active", completion_reason: null, data: { bot_respawns: 1 } });
			expect((await openChannel(m.id, first.spawn.channel.token)).status).toBe(409);
			expect((await claimAttempt(m.id, 1)).body).toMatchObject({ reason: "stale" });

			const second = await SimulatedBot.connect(await spawnRequestFor(m.id, 2));
			expect(second.spawn.attempt).toBe(2);
			// The new bot numbers from 1 again, and its seq 1 is applied (not taken for attempt 1's).
			await second.send({ type: "segment", segment: segment({ segment_id: "b-1", text: "after the respawn" }) }, 1);
			// It walks in again: its steps back are not moves backwards, and its `active` changes nothing.
			await second.status("joining");
			await second.status("active");
			expect((await getMeeting(headers, m.id)).status).toBe("active");
			const transcript = await json<{ segments: { segment_id: string }[] }>(
				await call("GET", `/transcripts/google_meet/${code}`, { headers }),
			);
			expect(transcript.segments.map((s) => s.segment_id).sort()).toEqual(["a-1", "b-1"]);
			// Live watchers hear both bots: the new attempt's seq 1 is not taken for one already delivered.
			const live = (segmentId: string) =>
				watcher.messages.some(
					(msg) => msg.type === "transcript" && (msg.confirmed as { segment_id: string }[]).some((s) => s.segment_id === segmentId),
				);
			await eventually("both bots' lines on /ws", () => (live("a-1") && live("b-1") ? true : undefined));
		} finally {
			watcher.close();
			await restore();
		}
	});
});

describe("publishing the ticket", () => {
	it("sends it with the queue token, and fails the meeting when the queue's envelope says no, without the token", async () => {
		const { headers } = await userWithKey();
		const id = await ownMeetingIds();
		await script(QUEUE_MESSAGES, [
			{ status: 200, body: '{"success":false,"errors":[{"code":10000,"message":"no"}]}', match: ticketMatch(id) },
		]);
		const m = await sendBot(headers, meetCode());
		expect(m.id).toBe(id);
		const failed = await eventually("failed", async () => {
			const row = await env.DB.prepare("SELECT status FROM meetings WHERE id = ?").bind(id).first<{ status: string }>();
			return row?.status === "failed" ? true : undefined;
		});
		expect(failed).toBe(true);
		const record = await getMeeting(headers, id);
		expect(record).toMatchObject({
			completion_reason: "join_failure",
			data: { failure_detail: "the spawn queue did not accept the ticket" },
		});
		const [publish] = (await received(QUEUE_MESSAGES)).filter((r) => r.body.includes(ticketMatch(id)));
		expect(publish?.headers.authorization).toBe(`Bearer ${env.SPAWN_QUEUE_TOKEN}`);
		expect(JSON.parse(publish?.body ?? "{}")).toMatchObject({ content_type: "json", body: { meeting_id: id, attempt: 1 } });
		expect(JSON.stringify(record)).not.toContain(String(env.SPAWN_QUEUE_TOKEN));
	});
});

describe("placement", () => {
	it("hands an auto-join meeting no host claimed back to its plan, with auto_join_error and a retry", async () => {
		const { headers } = await userWithKey();
		const plan = await createPlan(headers, { meeting_url: meetUrl(meetCode()), scheduled_at: new Date(Date.now() + 30_000).toISOString() });
		await fireTimersNow(plan.id);
		expect((await getMeeting(headers, plan.id)).status).toBe("requested");
		await fireTimersNow(plan.id);
		const back = await getMeeting(headers, plan.id);
		expect(back).toMatchObject({ status: "scheduled", completion_reason: null });
		expect(back.data.auto_join_error).toBe("No bot host took the meeting within 180 s");
		const room = await roomTimers(plan.id);
		expect(Object.keys(room.timers)).toEqual(["auto_join"]);
		expect(await claimAttempt(plan.id)).toMatchObject({ status: 409, body: { reason: "ended" } });
		// The retry joins again (the slot was given back).
		await fireTimersNow(plan.id);
		expect((await getMeeting(headers, plan.id)).status).toBe("requested");
	});
});
