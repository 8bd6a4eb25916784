/**
 * How a bot is placed (docs/bot-fleet.md#how-a-bot-is-placed): the room publishes a signed
 * ticket per attempt, the first host to claim the current attempt with that ticket and its own
 * credential gets its spawn request, the placement timer and the watchdog after a claim name
 * what went wrong, and a respawn continues the same meeting. The tests play the host: they
 * claim through SELF, which reaches this file's rooms, with tickets the receiver recorded.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import type { RoomState } from "../../../durable-objects/meeting-room/context";
import { ROOM_KEYS } from "../../../durable-objects/meeting-room/storage";
import { signChannelToken } from "../../../src/bot-channel/channel-token";
import type { SpawnTicket } from "../../../src/bot-channel/fleet";
import { ROOM_CLOSE } from "../../../src/bot-channel/protocol";
import type { WebhookEnvelope } from "../../../src/webhooks/envelope";
import { meetCode } from "../../shared/meetings";
import { eventually } from "../../shared/wait";
import {
	claimAttempt,
	hostCredential,
	openSocket,
	ownMeetingIds,
	publishedTicket,
	QUEUE_MESSAGES,
	reportedRoom,
	SimulatedBot,
	spawnRequestFor,
	ticketMatch,
	ticketsFor,
	unpublishedTicket,
} from "../meetings/bot-sim";
import { swapEnv } from "../meetings/broken-env";
import { createPlan, fireTimersNow, getMeeting, meetUrl, roomTimers, segment, sendBot } from "../meetings/helpers";
import { ADMIN, call, json, roomOf, userWithKey } from "../support";
import { userWithWebhook } from "../webhooks/fixtures";
import { newHook, received, script } from "../webhooks/receiver";

const CLAIMS = "https://gateway.test/internal/bot-hosts/claims";

function postClaim(body: unknown, headers: Record<string, string>) {
	return SELF.fetch(CLAIMS, {
		method: "POST",
		headers: { "content-type": "application/json", ...headers },
		body: typeof body === "string" ? body : JSON.stringify(body),
	});
}

const claimBody = (ticket: SpawnTicket, hostId = "test-host", fields: Record<string, unknown> = {}) => ({
	meeting_id: ticket.meeting_id,
	attempt: ticket.attempt,
	host_id: hostId,
	version: "test",
	ticket,
	...fields,
});

/** Opens a bot channel with a token; the Response tells whether the room took it. */
function openChannel(meetingId: number, token: string) {
	return SELF.fetch(`https://gateway.test/internal/bot-channel/${meetingId}`, {
		headers: { Upgrade: "websocket", Authorization: `Bearer ${token}` },
	});
}

/** Fires the room's watchdog alone (a host partitioned while its socket still looks open to the room). */
async function fireWatchdog(id: number) {
	await runInDurableObject(roomOf(id), async (_room: MeetingRoom, state) => {
		const timers = (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {};
		await state.storage.put(ROOM_KEYS.timers, { ...timers, watchdog: 0 });
		await state.storage.setAlarm(Date.now());
	});
	await runDurableObjectAlarm(roomOf(id));
}

/** The ticket a meeting's room published for attempt 1 (it is published just after POST /bots answers). */
async function ticketOf(meetingId: number): Promise<SpawnTicket> {
	const ticket = await publishedTicket(meetingId);
	if (!ticket) throw new Error(`no ticket published for meeting ${meetingId}`);
	return ticket;
}

/** The room's claim of its current attempt: null while unclaimed (nothing a refused claim did took it). */
const claimOf = (meetingId: number) =>
	runInDurableObject(roomOf(meetingId), async (_room: MeetingRoom, state) => (await state.storage.get<RoomState>(ROOM_KEYS.state))?.claim);

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

	it("refuses a missing, unknown or revoked host credential with 401, never echoing it, and claims nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const ticket = await ticketOf(m.id);
		const credential = await hostCredential("host-revoked");
		const wrong: Record<string, string>[] = [{}, { authorization: "Bearer bhc_nope" }, { authorization: `Basic ${credential}` }];
		expect((await call("DELETE", "/admin/bot-hosts/host-revoked", { headers: ADMIN })).status).toBe(204);
		wrong.push({ authorization: `Bearer ${credential}` });
		for (const presented of wrong) {
			const res = await postClaim(claimBody(ticket, "host-revoked"), presented);
			expect(res.status).toBe(401);
			const text = await res.text();
			expect(JSON.parse(text)).toEqual({ detail: "Invalid or missing bot host credential" });
			expect(text).not.toContain(credential);
		}
		expect(await claimOf(m.id)).toBeNull();
		expect((await claimAttempt(m.id, 1, "host-other")).status).toBe(200);
	});

	it("refuses a claim naming another host than its credential's with 403, and claims nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const ticket = await ticketOf(m.id);
		const hostA = await hostCredential("host-a");
		await hostCredential("host-b");
		const res = await postClaim(claimBody(ticket, "host-b"), { authorization: `Bearer ${hostA}` });
		expect(res.status).toBe(403);
		expect(await res.json()).toEqual({ detail: "This bot host credential is not host-b's" });
		expect(await claimOf(m.id)).toBeNull();
		const putBack = await reportedRoom("host-a");
		const own = await postClaim(claimBody(ticket, "host-a"), { authorization: `Bearer ${hostA}` });
		await putBack();
		expect(own.status).toBe(200);
		expect(await claimOf(m.id)).toMatchObject({ host_id: "host-a" });
	});

	it("takes only the ticket the room published for that meeting and attempt; guessing ids gets nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const other = await sendBot(headers, meetCode());
		const ticket = await ticketOf(m.id);
		const credential = await hostCredential("prober");
		const as = { authorization: `Bearer ${credential}` };
		// The claim of old: a meeting id and an attempt, no ticket. Polled for the ids around m.
		for (const id of [m.id, m.id + 1, m.id + 2]) {
			const res = await postClaim({ meeting_id: id, attempt: 1, host_id: "prober", version: "x" }, as);
			expect(res.status).toBe(422);
			expect((await json<{ detail: { loc: string[] }[] }>(res)).detail.map((d) => d.loc)).toContainEqual(["body", "ticket"]);
		}
		const forged: SpawnTicket[] = [
			{ ...ticket, signature: "0".repeat(64) },
			// Any field changed breaks the signature: a later deadline, another meeting, another attempt.
			{ ...ticket, not_after: new Date(Date.now() + 86_400_000).toISOString() },
			{ ...ticket, meeting_id: other.id },
		];
		for (const presented of forged) {
			const res = await postClaim(claimBody(ticket, "prober", { ticket: presented, meeting_id: presented.meeting_id }), as);
			expect(res.status, JSON.stringify(presented)).toBe(403);
			expect((await json<{ detail: string }>(res)).detail).toMatch(/^The spawn ticket is not a valid ticket for meeting \d+ attempt 1$/);
		}
		// A real ticket, but another meeting's or another attempt's than the claim names.
		const otherTicket = await ticketOf(other.id);
		const crossed = [
			claimBody(otherTicket, "prober", { meeting_id: m.id }),
			claimBody(await unpublishedTicket(m.id, 2), "prober", { attempt: 1 }),
		];
		for (const body of crossed) expect((await postClaim(body, as)).status).toBe(403);
		// Signed with the deployment's key but never published: not the ticket the room waits on.
		// The prober reported room for one claim: the room's refusal gives the slot back for the real ticket.
		const putBack = await reportedRoom("prober");
		const unpublished = await postClaim(claimBody(await unpublishedTicket(m.id), "prober"), as);
		expect(await unpublished.json()).toEqual({ detail: "the ticket is not the one published for attempt 1", reason: "stale" });
		expect(await claimOf(m.id)).toBeNull();
		expect(await claimOf(other.id)).toBeNull();
		expect((await postClaim(claimBody(ticket, "prober"), as)).status).toBe(200);
		await putBack();
	});

	it("refuses a signed ticket past its not_after as stale before the room, and claims nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const as = { authorization: `Bearer ${await hostCredential("late-host")}` };
		const expired = await unpublishedTicket(m.id, 1, Date.now() - 1000);
		const res = await postClaim(claimBody(expired, "late-host"), as);
		expect(res.status).toBe(409);
		expect(await res.json()).toEqual({ detail: `the spawn ticket expired at ${expired.not_after}`, reason: "stale" });
		expect(await claimOf(m.id)).toBeNull();
	});

	it("hands the bot no transcription token: it transcribes through the Worker with its channel token", async () => {
		const { headers } = await userWithKey();
		await call("PUT", "/user/transcription", {
			headers,
			json: { url: "https://stt.account.example.com/v1", token: "account-stt-token-4321" },
		});
		const m = await sendBot(headers, meetCode());
		const spawn = await spawnRequestFor(m.id);
		expect(spawn.transcription).toEqual({
			url: `https://gateway.test/internal/bot-channel/${m.id}/audio/transcriptions`,
			token: spawn.channel.token,
		});
		const text = JSON.stringify(spawn);
		expect(text).not.toContain("account-stt-token-4321");
		expect(text).not.toContain("stt.account.example.com");
		expect(text).not.toContain(String(env.TRANSCRIPTION_TOKEN));
		// Without an endpoint the bot uses captions, as before.
		const captions = await userWithKey();
		const plain = await spawnRequestFor((await sendBot(captions.headers, meetCode())).id);
		expect(plain.transcription).toBeNull();
	});

	it("refuses a bad body with 422 field errors and claims nothing", async () => {
		const { headers } = await userWithKey();
		const m = await sendBot(headers, meetCode());
		const ticket = await ticketOf(m.id);
		const as = { authorization: `Bearer ${await hostCredential("h")}` };
		const bad = [
			"not json",
			{ meeting_id: m.id, attempt: 1, version: "1", ticket },
			{ meeting_id: m.id, attempt: 0, host_id: "h", version: "1", ticket },
			{ meeting_id: m.id, attempt: 1, host_id: "a host/with spaces", version: "1", ticket },
			{ meeting_id: "1", attempt: 1, host_id: "h", version: "1", ticket },
			{ meeting_id: m.id, attempt: 1, host_id: "h", version: "1", ticket: { ...ticket, ticket_id: "short" } },
		];
		for (const body of bad) {
			const res = await postClaim(body, as);
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
	it("fails an admitted meeting with no reason and cause bot_host_lost once the channel stays gone past the grace, releases the slot and sends bot.failed", async () => {
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
		// The spec's teardown reasons cover a bot not yet admitted; once admitted the machine names none.
		expect(failed).toMatchObject({ status: "failed", completion_reason: null, failure_stage: "active" });
		expect(failed.data).toMatchObject({
			failure_cause: "bot_host_lost",
			failure_detail: "the bot's channel stayed closed for more than 30 s (bot host test-host)",
		});
		const envelope = await eventually("bot.failed", async () =>
			(await received(hook.path)).map((r) => JSON.parse(r.body) as WebhookEnvelope).find((e) => e.event_type === "bot.failed"),
		);
		expect(envelope.data.meeting).toMatchObject({ id: m.id, completion_reason: null, data: { failure_cause: "bot_host_lost" } });
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
		// Hours ahead, so auto-join waits for fireTimersNow: a timer due at once fires on its own, and
		// zeroing the timers after that launch would expire its placement before the first check.
		const plan = await createPlan(headers, {
			meeting_url: meetUrl(meetCode()),
			scheduled_at: new Date(Date.now() + 2 * 3600_000).toISOString(),
		});
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
