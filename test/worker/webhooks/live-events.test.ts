import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import type { MeetingRoom } from "../../../durable-objects/meeting-room";
import { type LiveWebhooksHost, RoomLiveWebhooks } from "../../../durable-objects/meeting-room/live-webhooks";
import { ROOM_KEYS, type RoomTimerName } from "../../../durable-objects/meeting-room/storage";
import { RoomWebhookRelay } from "../../../durable-objects/meeting-room/webhook-relay";
import { kvAlarmTimers } from "../../../durable-objects/shared/alarm-timers";
import { accountObject } from "../../../src/objects";
import type { WebhookParticipantEvent, WebhookSegment, WebhookTranscriptSegments } from "../../../src/shapes/webhook";
import { TRANSCRIPT_BATCH } from "../../../src/webhooks/live-events";
import { verifyWebhook } from "../../../src/webhooks/signature";
import { eventually } from "../../shared/wait";
import { liveMeeting, segment } from "../meetings/helpers";
import { accountOf, call, roomOf } from "../support";
import { deliveryRows, HOOK_SECRET, userWithWebhook } from "./fixtures";
import { newHook, type ReceivedRequest, received, script } from "./receiver";

const LIVE = { "transcript.segments": true, "participant.joined": true, "participant.left": true };
const LIVE_TYPES = new Set(Object.keys(LIVE));

type LiveEnvelope = WebhookTranscriptSegments | WebhookParticipantEvent;

const bodies = (requests: ReceivedRequest[]) => requests.map((r) => JSON.parse(r.body) as LiveEnvelope);
const batches = (requests: ReceivedRequest[]) =>
	bodies(requests).filter((e): e is WebhookTranscriptSegments => e.event_type === "transcript.segments");
const linesOf = (requests: ReceivedRequest[]): WebhookSegment[] => batches(requests).flatMap((e) => e.data.segments);

/** Waits until the receiver holds live events whose batches carry `lines` lines in all (and `others` other live events). */
function liveDeliveries(path: string, lines: number, others = 0) {
	return eventually(`${lines} lines and ${others} other live events`, async () => {
		const got = await received(path);
		const events = bodies(got);
		const delivered = linesOf(got).length;
		return delivered >= lines && events.length - batches(got).length >= others ? got : undefined;
	});
}

/** A meeting with a bot in the call, owned by a user whose webhook takes `events`. */
async function meetingFor(events: Record<string, boolean>, hook = newHook()) {
	const { headers, user } = await userWithWebhook(hook.url, { events });
	const live = await liveMeeting(headers);
	return { ...live, headers, user, hook };
}

function inspectOutbox(userId: number) {
	return runInDurableObject(accountOf(userId), (_object, state) =>
		state.storage.sql
			.exec<{ event_id: string; event_type: string; attempts: number }>(
				`SELECT event_id, event_type, attempts FROM ${ACCOUNT_STORAGE.tables.webhookOutbox} ORDER BY rowid`,
			)
			.toArray(),
	);
}

describe("transcript.segments", () => {
	it("sends confirmed lines, never drafts, as one signed batch once the batch's time is up, the open batch kept in room storage", async () => {
		const { bot, meeting, hook } = await meetingFor(LIVE);
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", text: "Draft of the first.", completed: false }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "a", text: "The first line." }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "b", text: "The second line.", start: 2, end: 3 }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "c", text: "A draft never confirmed.", completed: false }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "d", speaker: "Bob", text: "The third.", start: 3, end: 4 }) });

		// Until its timer fires, the batch is in the room's storage (an evicted room finds it there), and its timer is set.
		const kept = await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => ({
			live: await state.storage.get<{ batch: WebhookSegment[]; sequence: number }>(ROOM_KEYS.liveWebhooks),
			timers: (await state.storage.get<Record<string, number>>(ROOM_KEYS.timers)) ?? {},
		}));
		const stillOpen = kept.live?.batch.length ?? 0;
		if (stillOpen > 0) {
			expect(kept.live?.batch.map((s) => s.segment_id)).toEqual(["a", "b", "d"].slice(0, stillOpen));
			const firstStored = Date.parse(kept.live?.batch[0]?.updated_at ?? "");
			expect(kept.timers.live_webhooks! - firstStored).toBeGreaterThanOrEqual(TRANSCRIPT_BATCH.waitMs - 1);
			expect(kept.timers.live_webhooks! - firstStored).toBeLessThanOrEqual(TRANSCRIPT_BATCH.waitMs + 1000);
		}

		// Nothing more is said: only the batch's timer can send the three lines (fewer than TRANSCRIPT_BATCH.segments).
		const requests = await liveDeliveries(hook.path, 3);
		expect(requests).toHaveLength(1);
		const [request] = requests;
		expect(await verifyWebhook(HOOK_SECRET, request!.headers, request!.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		expect(await verifyWebhook("another-secret", request!.headers, request!.body, { toleranceSeconds: 300 })).toMatchObject({ ok: false });
		const [batch] = batches(requests);
		expect(batch).toMatchObject({
			event_type: "transcript.segments",
			api_version: "2026-03-01",
			data: { meeting: { id: meeting.id, platform: "google_meet", native_meeting_id: meeting.native_meeting_id }, sequence: 1 },
		});
		expect(batch!.event_id).toMatch(/^evt_[0-9a-f]{32}$/);
		expect(batch!.data.segments.map((s) => [s.segment_id, s.text, s.speaker, s.version, s.completed])).toEqual([
			["a", "The first line.", "Alice", 1, true],
			["b", "The second line.", "Alice", 1, true],
			["d", "The third.", "Bob", 1, true],
		]);
		expect(request!.body).not.toContain("draft");
		expect(request!.body).not.toContain("Draft");
		for (const line of batch!.data.segments) expect(Date.parse(line.updated_at)).toBeGreaterThanOrEqual(Date.parse(line.created_at));
		const rows = await eventually("the batch's delivery row", async () => {
			const r = (await deliveryRows(meeting.user_id)).filter((row) => row.event_type === "transcript.segments");
			return r.length > 0 ? r : undefined;
		});
		expect(rows).toEqual([
			expect.objectContaining({ event_id: batch!.event_id, outcome: "delivered", attempt: 1, meeting_id: meeting.id }),
		]);
	});

	it("closes a batch at its size in lines and in bytes, and every line arrives once, in the order confirmed", async () => {
		const { bot, hook } = await meetingFor(LIVE);
		const count = 2 * TRANSCRIPT_BATCH.segments + 5;
		for (let i = 0; i < count; i++)
			await bot.send({ type: "segment", segment: segment({ segment_id: `n${i}`, text: `Line ${i}.`, start: i, end: i + 1 }) });
		// Lines of 9,000 characters: 64 KB of JSON is reached after a few.
		const long = (i: number) => `${i} ${"word ".repeat(1_800)}`;
		for (let i = 0; i < 12; i++)
			await bot.send({ type: "segment", segment: segment({ segment_id: `l${i}`, text: long(i), start: 100 + i, end: 101 + i }) });

		const requests = await liveDeliveries(hook.path, count + 12);
		const sent = batches(requests);
		expect(sent.map((b) => b.data.sequence)).toEqual(sent.map((_, i) => i + 1));
		expect(linesOf(requests).map((s) => s.segment_id)).toEqual([
			...Array.from({ length: count }, (_, i) => `n${i}`),
			...Array.from({ length: 12 }, (_, i) => `l${i}`),
		]);
		for (const b of sent) {
			expect(b.data.segments.length).toBeLessThanOrEqual(TRANSCRIPT_BATCH.segments);
			// A batch closes on the line that reaches the byte bound: without its last line, it was below it.
			const before = JSON.stringify(b.data.segments.slice(0, -1));
			expect(new TextEncoder().encode(before).length).toBeLessThan(TRANSCRIPT_BATCH.bytes);
		}
		// More lines than one batch holds, and more bytes: at least three batches for the short lines, and two for the long.
		expect(sent.filter((b) => b.data.segments.some((s) => s.segment_id.startsWith("n"))).length).toBeGreaterThanOrEqual(3);
		expect(sent.filter((b) => b.data.segments.some((s) => s.segment_id.startsWith("l"))).length).toBeGreaterThanOrEqual(2);
		expect(new Set(sent.map((b) => b.event_id)).size).toBe(sent.length);
	});

	it("sends a resent line never again, and a corrected one again with the next version", async () => {
		const { bot, hook } = await meetingFor(LIVE);
		await bot.send({ type: "segment", segment: segment({ segment_id: "x", speaker: "Speaker 1", text: "We ship on Friday." }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "y", text: "Agreed.", start: 2, end: 3 }) });
		const first = await liveDeliveries(hook.path, 2);
		// The same confirmation again (a resend), then a correction: the provisional speaker label bound to a name.
		await bot.send({ type: "segment", segment: segment({ segment_id: "y", text: "Agreed.", start: 2, end: 3 }) });
		await bot.send({ type: "segment", segment: segment({ segment_id: "x", speaker: "Carol", text: "We ship on Friday." }) });
		const all = await liveDeliveries(hook.path, 3);
		expect(batches(first)).toHaveLength(1);
		expect(linesOf(all).map((s) => [s.segment_id, s.version, s.speaker])).toEqual([
			["x", 1, "Speaker 1"],
			["y", 1, "Alice"],
			["x", 2, "Carol"],
		]);
		const [v1, , v2] = linesOf(all);
		expect(Date.parse(v2!.updated_at)).toBeGreaterThanOrEqual(Date.parse(v1!.updated_at));
		expect(v2!.created_at).toBe(v1!.created_at);
	});

	it("delivers a meeting's batches in order across a failing then recovering receiver, a retried batch keeping its id and bytes", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 503 }]);
		const { bot, user } = await meetingFor(LIVE, hook);
		await bot.send({ type: "segment", segment: segment({ segment_id: "one", text: "First batch." }) });
		await eventually("the first batch refused", async () => ((await received(hook.path)).length > 0 ? true : undefined));
		await bot.send({ type: "segment", segment: segment({ segment_id: "two", text: "Second batch.", start: 2, end: 3 }) });
		await bot.send({ type: "participant", event: "join", participant: { id: "Dan", name: "Dan" }, timestamp: new Date().toISOString() });

		// The second batch and the participant event wait behind the first: queued, never attempted.
		const queued = await eventually("three live events in the outbox", async () => {
			const rows = await inspectOutbox(user.id);
			return rows.length >= 3 ? rows : undefined;
		});
		expect(queued.map((r) => [r.event_type, r.attempts])).toEqual([
			["transcript.segments", 1],
			["transcript.segments", 0],
			["participant.joined", 0],
		]);
		expect(await received(hook.path)).toHaveLength(1);

		// The first batch's backoff elapses: it is retried, then the rest follow in the same run.
		await runInDurableObject(accountOf(user.id), (_object, state) => {
			state.storage.sql.exec(`UPDATE ${ACCOUNT_STORAGE.tables.webhookOutbox} SET next_attempt_at = 0 WHERE attempts > 0`);
		});
		await runDurableObjectAlarm(accountOf(user.id));
		const requests = await liveDeliveries(hook.path, 3, 1);
		const events = bodies(requests);
		expect(events.map((e) => [e.event_type, e.data.sequence])).toEqual([
			["transcript.segments", 1],
			["transcript.segments", 1],
			["transcript.segments", 2],
			["participant.joined", 3],
		]);
		expect(events[1]!.event_id).toBe(events[0]!.event_id);
		expect(requests[1]!.body).toBe(requests[0]!.body);
		for (const r of requests)
			expect(await verifyWebhook(HOOK_SECRET, r.headers, r.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		expect(await inspectOutbox(user.id)).toEqual([]);
		const rows = (await deliveryRows(user.id)).filter((r) => LIVE_TYPES.has(r.event_type));
		expect(rows.map((r) => [r.event_id, r.outcome, r.attempt])).toEqual([
			[events[0]!.event_id, "queued", 1],
			[events[0]!.event_id, "delivered", 2],
			[events[2]!.event_id, "delivered", 1],
			[events[3]!.event_id, "delivered", 1],
		]);
	});
});

describe("a room evicted between two lines", () => {
	/** The live events' part as a room builds it on wake-up: nothing in memory, everything from its storage. */
	function wokenUp(storage: DurableObjectStorage): RoomLiveWebhooks {
		const timers = kvAlarmTimers<RoomTimerName>(storage);
		const relay = new RoomWebhookRelay(storage, timers, (userId) => accountObject(env, userId));
		const host: LiveWebhooksHost = { storage, timers, webhooks: relay, env, sendNotices: () => relay.drain() };
		return new RoomLiveWebhooks(host);
	}

	it("finds its open batch, its sequence and the versions it sent in storage", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url, { events: LIVE });
		// An object of its own: no bot and no meeting, only the storage the live events keep.
		const meeting = { meetingId: 900_000 + user.id, userId: user.id, platform: "google_meet", nativeMeetingId: "evi-cted-now" };
		await runInDurableObject(roomOf(meeting.meetingId), async (_room: MeetingRoom, state) => {
			await wokenUp(state.storage).segmentStored(
				meeting,
				segment({ segment_id: "e1", text: "Before the eviction." }),
				"2026-06-18T10:00:00.000Z",
			);
			// A new instance: the batch, its timer and the sent versions come from storage alone.
			const after = wokenUp(state.storage);
			await after.batchDue();
			await after.segmentStored(meeting, segment({ segment_id: "e1", text: "Before the eviction." }), "2026-06-18T10:00:00.000Z");
			await after.segmentStored(meeting, segment({ segment_id: "e2", text: "After it.", start: 2, end: 3 }), "2026-06-18T10:00:01.000Z");
			await wokenUp(state.storage).batchDue();
		});
		const requests = await liveDeliveries(hook.path, 2);
		expect(
			batches(requests).map((b) => [b.data.sequence, b.data.meeting.id, b.data.segments.map((s) => [s.segment_id, s.version])]),
		).toEqual([
			[1, meeting.meetingId, [["e1", 1]]],
			[2, meeting.meetingId, [["e2", 1]]],
		]);
	});
});

describe("participant.joined and participant.left", () => {
	it("sends who joined and left, the name as the meeting's text in JSON, after the lines confirmed before", async () => {
		const { bot, meeting, hook } = await meetingFor(LIVE);
		const name = `</script><img src=x onerror=alert(1)> "Eve" \\ \u202e`;
		await bot.send({ type: "segment", segment: segment({ segment_id: "before", text: "Said before Eve came." }) });
		const joinedAt = new Date().toISOString();
		await bot.send({ type: "participant", event: "join", participant: { id: name, name }, timestamp: joinedAt });
		const leftAt = new Date().toISOString();
		await bot.send({ type: "participant", event: "leave", participant: { id: name, name }, timestamp: leftAt });

		const requests = await liveDeliveries(hook.path, 1, 2);
		for (const r of requests)
			expect(await verifyWebhook(HOOK_SECRET, r.headers, r.body, { toleranceSeconds: 300 })).toMatchObject({ ok: true });
		const events = bodies(requests);
		expect(events.map((e) => [e.event_type, e.data.sequence])).toEqual([
			["transcript.segments", 1],
			["participant.joined", 2],
			["participant.left", 3],
		]);
		const ref = { id: meeting.id, platform: "google_meet", native_meeting_id: meeting.native_meeting_id };
		expect(events[1]).toMatchObject({ data: { meeting: ref, participant: { id: name, name }, timestamp: joinedAt } });
		expect(events[2]).toMatchObject({ data: { meeting: ref, participant: { id: name, name }, timestamp: leftAt } });
		expect(Object.keys(events[1]!.data)).toEqual(["meeting", "sequence", "participant", "timestamp"]);
	});
});

describe("the filter", () => {
	it("sends no live event to an account that did not turn them on, and records none", async () => {
		const { bot, headers, meeting, hook, user } = await meetingFor({});
		await bot.send({ type: "segment", segment: segment({ segment_id: "q", text: "Nobody asked for this line." }) });
		await bot.send({ type: "participant", event: "join", participant: { id: "Fay", name: "Fay" }, timestamp: new Date().toISOString() });
		expect((await call("DELETE", `/bots/google_meet/${meeting.native_meeting_id}`, { headers })).status).toBe(204);
		await bot.status("completed");

		// meeting.completed (on by default) is the meeting's last event: once it is in, nothing else is on its way.
		const requests = await eventually("meeting.completed", async () => {
			const got = await received(hook.path);
			return got.some((r) => r.body.includes('"event_type":"meeting.completed"')) ? got : undefined;
		});
		const room = await runInDurableObject(roomOf(meeting.id), async (_room: MeetingRoom, state) => ({
			live: await state.storage.get(ROOM_KEYS.liveWebhooks),
			versions: (await state.storage.list({ prefix: ROOM_KEYS.segmentVersionPrefix })).size,
		}));
		expect(requests.map((r) => (JSON.parse(r.body) as { event_type: string }).event_type)).toEqual(["meeting.completed"]);
		expect(room).toEqual({ live: undefined, versions: 0 });
		const rows = await deliveryRows(user.id);
		expect(rows.filter((r) => r.event_type === "meeting.completed")).toHaveLength(1);
		expect(rows.filter((r) => LIVE_TYPES.has(r.event_type))).toEqual([]);
	});
});
