import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ACCOUNT_STORAGE } from "../../../durable-objects/account/storage";
import { GIVE_UP_AFTER_MS, type OutboxOptions, retryDelay, WebhookOutbox } from "../../../durable-objects/account/webhook-outbox";
import type { AttemptReport, WebhookEvent } from "../../../src/webhooks/deliver";
import { verifyWebhook } from "../../../src/webhooks/signature";
import { accountOf } from "../support";
import { brokenD1, deliveryRows, HOOK_SECRET, userWithWebhook, webhookEvent } from "./fixtures";
import { newHook, received, script } from "./receiver";

const MIN = 60_000;
const HOUR = 60 * MIN;

interface OutboxRow {
	event_id: string;
	attempts: number;
	first_attempt_at: number;
	next_attempt_at: number;
}

/** The outbox table and the alarm, read straight from the account's storage. */
function inspect(userId: number) {
	return runInDurableObject(accountOf(userId), async (_instance, state) => ({
		rows: state.storage.sql
			.exec<Record<string, number | string> & OutboxRow>(`SELECT * FROM ${ACCOUNT_STORAGE.tables.webhookOutbox} ORDER BY first_attempt_at`)
			.toArray(),
		alarm: await state.storage.getAlarm(),
	}));
}

/** Moves every queued event's retry time into the past, as if its backoff had elapsed. */
function elapseBackoff(userId: number) {
	return runInDurableObject(accountOf(userId), (_instance, state) => {
		state.storage.sql.exec(`UPDATE ${ACCOUNT_STORAGE.tables.webhookOutbox} SET next_attempt_at = 0`);
	});
}

/** A movable clock for outboxes built directly on an account's storage. */
function movableClock(start = Date.parse("2026-06-18T10:00:00Z")) {
	let now = start;
	return { now: () => new Date(now), set: (ms: number) => (now = ms), advance: (ms: number) => (now += ms) };
}

function withOutbox<R>(userId: number, options: OutboxOptions & { env?: typeof env }, run: (outbox: WebhookOutbox) => Promise<R>) {
	return runInDurableObject(accountOf(userId), (_instance, state) => run(new WebhookOutbox(state.storage, options.env ?? env, options)));
}

describe("enqueueWebhook on the account", () => {
	it("queues a 503, retries it from the alarm with the same signed body, then clears the alarm", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 503 }]);
		const { user } = await userWithWebhook(hook.url);
		const event = await webhookEvent(user.id);

		const report = await accountOf(user.id).enqueueWebhook(user.id, event);
		expect(report).toMatchObject({ outcome: "queued", retry: true, status_code: 503 });

		const queued = await inspect(user.id);
		expect(queued.rows).toHaveLength(1);
		expect(queued.rows[0]).toMatchObject({ event_id: event.event_id, attempts: 1 });
		expect(queued.rows[0]!.next_attempt_at - queued.rows[0]!.first_attempt_at).toBeGreaterThanOrEqual(MIN);
		expect(queued.alarm).toBe(queued.rows[0]!.next_attempt_at);

		await elapseBackoff(user.id);
		expect(await runDurableObjectAlarm(accountOf(user.id))).toBe(true);

		const requests = await received(hook.path);
		expect(requests).toHaveLength(2);
		expect(requests[1]?.body).toBe(requests[0]?.body);
		expect(JSON.parse(requests[1]?.body ?? "{}").event_id).toBe(event.event_id);
		for (const r of requests)
			expect(await verifyWebhook(HOOK_SECRET, r.headers, r.body, { toleranceSeconds: 60 })).toMatchObject({ ok: true });

		expect(await inspect(user.id)).toEqual({ rows: [], alarm: null });
		expect((await deliveryRows(user.id)).map((r) => [r.outcome, r.status_code, r.attempt])).toEqual([
			["queued", 503, 1],
			["delivered", 200, 2],
		]);
	});

	it.each([
		["delivered", { status: 200 }, {}],
		["failed", { status: 404 }, {}],
		["suppressed", { status: 200 }, { events: { "meeting.completed": false } }],
	] as const)("keeps nothing queued and no alarm after a %s attempt", async (outcome, answer, settings) => {
		const hook = newHook();
		await script(hook.path, [answer]);
		const { user } = await userWithWebhook(hook.url, settings);
		const report = await accountOf(user.id).enqueueWebhook(user.id, await webhookEvent(user.id));
		expect(report.outcome).toBe(outcome);
		expect(await inspect(user.id)).toEqual({ rows: [], alarm: null });
	});

	it("leaves an event that is not yet due alone when the alarm runs, and re-arms for it", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 500 }]);
		const { user } = await userWithWebhook(hook.url);
		await accountOf(user.id).enqueueWebhook(user.id, await webhookEvent(user.id));
		const before = await inspect(user.id);

		expect(await runDurableObjectAlarm(accountOf(user.id))).toBe(true);

		const after = await inspect(user.id);
		expect(after.rows).toEqual(before.rows);
		expect(after.alarm).toBe(before.rows[0]!.next_attempt_at);
		expect(await received(hook.path)).toHaveLength(1);
	});

	it("does not send an event twice when it is enqueued again while queued", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 502 }]);
		const { user } = await userWithWebhook(hook.url);
		const event = await webhookEvent(user.id);
		await accountOf(user.id).enqueueWebhook(user.id, event);
		expect(await accountOf(user.id).enqueueWebhook(user.id, event)).toEqual({ outcome: "duplicate", retry: true });
		expect(await received(hook.path)).toHaveLength(1);
		expect((await inspect(user.id)).rows).toHaveLength(1);
	});
});

describe("the retry schedule", () => {
	it("retries after 1 min, 5 min, 30 min, 2 h, then every 2 h, and gives up within 24 h", async () => {
		const hook = newHook();
		await script(
			hook.path,
			Array.from({ length: 30 }, () => ({ status: 503 })),
		);
		const { user } = await userWithWebhook(hook.url);
		const clock = movableClock();
		const start = clock.now().getTime();

		const offsets = await withOutbox(user.id, { clock }, async (outbox) => {
			const seen: number[] = [];
			await outbox.enqueue(user.id, await webhookEvent(user.id));
			seen.push(0);
			for (let due = outbox.nextDueAt(); due !== null; due = outbox.nextDueAt()) {
				clock.set(due);
				await outbox.runDue();
				seen.push(due - start);
			}
			return seen;
		});

		const expected = [0, MIN, 6 * MIN, 36 * MIN];
		for (let t = 2 * HOUR + 36 * MIN; t <= GIVE_UP_AFTER_MS; t += 2 * HOUR) expected.push(t);
		expect(offsets).toEqual(expected);
		expect(offsets.at(-1)).toBe(22 * HOUR + 36 * MIN);
		expect(await received(hook.path)).toHaveLength(expected.length);
		const outcomes = (await deliveryRows(user.id)).map((r) => r.outcome);
		expect(outcomes).toEqual([...Array.from({ length: expected.length - 1 }, () => "queued"), "failed"]);
	});

	it("spells out the backoff steps", () => {
		expect([1, 2, 3, 4, 5, 9].map(retryDelay)).toEqual([MIN, 5 * MIN, 30 * MIN, 2 * HOUR, 2 * HOUR, 2 * HOUR]);
	});

	it("makes one final attempt for an event found past its deadline", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 503 }, { status: 503 }]);
		const { user } = await userWithWebhook(hook.url);
		const clock = movableClock();
		const report = await withOutbox(user.id, { clock }, async (outbox) => {
			await outbox.enqueue(user.id, await webhookEvent(user.id));
			clock.advance(30 * HOUR); // the account was unreachable for a day
			await outbox.runDue();
			return outbox.pending();
		});
		expect(report).toEqual([]);
		expect((await deliveryRows(user.id)).map((r) => r.outcome)).toEqual(["queued", "failed"]);
	});
});

describe("a D1 outage", () => {
	it("keeps the event queued when settings cannot be read, and delivers once D1 is back", async () => {
		const hook = newHook();
		const { user } = await userWithWebhook(hook.url);
		const event = await webhookEvent(user.id);
		const clock = movableClock();

		const during = await withOutbox(user.id, { clock, env: { ...env, DB: brokenD1("all") } }, async (outbox) => ({
			report: await outbox.enqueue(user.id, event),
			pending: outbox.pending(),
		}));
		expect(during.report).toMatchObject({ outcome: "queued", retry: true, recorded: false });
		expect(during.pending.map((p) => [p.event_id, p.attempts])).toEqual([[event.event_id, 1]]);
		expect(await received(hook.path)).toEqual([]);

		clock.advance(MIN);
		const after = await withOutbox(user.id, { clock }, async (outbox) => {
			await outbox.runDue();
			return outbox.pending();
		});
		expect(after).toEqual([]);
		expect((await received(hook.path)).map((r) => r.body)).toEqual([event.body]);
		expect((await deliveryRows(user.id)).map((r) => [r.outcome, r.attempt])).toEqual([["delivered", 2]]);
	});

	it("keeps a retryable failure queued even when its history row cannot be written", async () => {
		const hook = newHook();
		await script(hook.path, [{ status: 503 }]);
		const { user } = await userWithWebhook(hook.url);
		const event = await webhookEvent(user.id);
		const clock = movableClock();

		const report = await withOutbox(user.id, { clock, env: { ...env, DB: brokenD1("writes") } }, (outbox) =>
			outbox.enqueue(user.id, event),
		);
		expect(report).toMatchObject({ outcome: "queued", status_code: 503, recorded: false });
		expect(await deliveryRows(user.id)).toEqual([]);

		clock.advance(MIN);
		const pending = await withOutbox(user.id, { clock }, async (outbox) => {
			await outbox.runDue();
			return outbox.pending();
		});
		expect(pending).toEqual([]);
		expect(await received(hook.path)).toHaveLength(2);
		expect((await deliveryRows(user.id)).map((r) => [r.outcome, r.attempt])).toEqual([["delivered", 2]]);
	});
});

describe("durability of the queue itself", () => {
	const settled: AttemptReport = { outcome: "delivered", retry: false, status_code: 200, target_host: "h", recorded: true };

	it("writes the event before the first attempt, so a crash mid-attempt is retried", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const event = await webhookEvent(user.id);
		const seenDuringAttempt = await runInDurableObject(accountOf(user.id), async (_i, state) => {
			let seen: unknown[] = [];
			const outbox = new WebhookOutbox(state.storage, env, {
				deliver: async () => {
					seen = state.storage.sql.exec(`SELECT event_id, attempts FROM ${ACCOUNT_STORAGE.tables.webhookOutbox}`).toArray();
					return settled;
				},
			});
			await outbox.enqueue(user.id, event);
			return seen;
		});
		expect(seenDuringAttempt).toEqual([{ event_id: event.event_id, attempts: 1 }]);
	});

	it("treats an attempt that throws as retryable", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const result = await withOutbox(
			user.id,
			{
				deliver: async () => {
					throw new Error("boom");
				},
			},
			async (outbox) => ({ report: await outbox.enqueue(user.id, await webhookEvent(user.id)), pending: outbox.pending().length }),
		);
		expect(result).toEqual({
			report: { outcome: "queued", retry: true, status_code: null, target_host: null, recorded: false },
			pending: 1,
		});
	});

	it("drops the oldest events when full", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const clock = movableClock();
		const queuedForever: AttemptReport = { outcome: "queued", retry: true, status_code: 503, target_host: "h", recorded: true };
		const events: WebhookEvent[] = [];
		for (let i = 0; i < 5; i++) events.push(await webhookEvent(user.id));
		const kept = await withOutbox(user.id, { clock, capacity: 3, deliver: async () => queuedForever }, async (outbox) => {
			for (const e of events) {
				clock.advance(1000);
				await outbox.enqueue(user.id, e);
			}
			return outbox.pending().map((p) => p.event_id);
		});
		expect(kept).toEqual(events.slice(2).map((e) => e.event_id));
	});
});

describe("ordered events (a meeting's live events)", () => {
	const delivered: AttemptReport = { outcome: "delivered", retry: false, status_code: 200, target_host: "h", recorded: true };
	const refused: AttemptReport = { outcome: "queued", retry: true, status_code: 503, target_host: "h", recorded: true };

	it("attempts only the oldest of a key; the rest go in queuing order once it is settled, in the same run", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const clock = movableClock();
		const attempts: string[] = [];
		let answer = refused;
		const chain = await Promise.all([1, 2, 3].map(async () => ({ ...(await webhookEvent(user.id)), order_key: "meeting:1" })));
		const other = await webhookEvent(user.id);
		const result = await withOutbox(
			user.id,
			{
				clock,
				deliver: async (_env, _user, event) => {
					attempts.push(event.event_id);
					return event.order_key ? answer : delivered;
				},
			},
			async (outbox) => {
				const first = await outbox.enqueue(user.id, chain[0]!);
				const second = await outbox.enqueue(user.id, chain[1]!);
				await outbox.enqueueAll(user.id, [chain[2]!]);
				const unordered = await outbox.enqueue(user.id, other);
				const waiting = { due: outbox.nextDueAt(), pending: outbox.pending().map((p) => p.event_id) };
				await outbox.runDue(); // nothing is due: the head waits for its backoff, the rest for the head
				const beforeBackoff = [...attempts];
				clock.advance(retryDelay(1));
				answer = delivered;
				await outbox.runDue();
				return { first, second, unordered, waiting, beforeBackoff, left: outbox.pending().length };
			},
		);
		expect(result.first).toMatchObject({ outcome: "queued" });
		expect(result.second).toEqual({ outcome: "waiting", retry: true });
		expect(result.unordered).toMatchObject({ outcome: "delivered" });
		// Only the head's retry is due; the events behind it do not wake the alarm.
		expect(result.waiting.due).toBe(Date.parse("2026-06-18T10:00:00Z") + retryDelay(1));
		expect([...result.waiting.pending].sort()).toEqual(chain.map((e) => e.event_id).sort());
		expect(result.beforeBackoff).toEqual([chain[0]!.event_id, other.event_id]);
		expect(attempts).toEqual([chain[0]!.event_id, other.event_id, ...chain.map((e) => e.event_id)]);
		expect(result.left).toBe(0);
	});

	it("lets the next event go when the one before it is given up", async () => {
		const { user } = await userWithWebhook("https://hooks.example.com/in");
		const clock = movableClock();
		const attempts: string[] = [];
		const chain = await Promise.all([1, 2].map(async () => ({ ...(await webhookEvent(user.id)), order_key: "meeting:2" })));
		const left = await withOutbox(
			user.id,
			{
				clock,
				deliver: async (_env, _user, event, options) => {
					attempts.push(event.event_id);
					if (event.event_id === chain[0]!.event_id)
						return { ...refused, outcome: options.willRetry ? "queued" : "failed", retry: options.willRetry };
					return delivered;
				},
			},
			async (outbox) => {
				await outbox.enqueueAll(user.id, chain);
				// The second keeps its place behind the first through every retry until the first is given up.
				for (let i = 0; i < 20 && outbox.pending().length > 0; i++) {
					await outbox.runDue();
					clock.advance(2 * 3_600_000);
				}
				return outbox.pending().length;
			},
		);
		expect(left).toBe(0);
		expect(attempts.at(-1)).toBe(chain[1]!.event_id);
		expect(attempts.filter((id) => id === chain[1]!.event_id)).toHaveLength(1);
		expect(attempts.slice(0, -1).every((id) => id === chain[0]!.event_id)).toBe(true);
		expect(attempts.length).toBeGreaterThan(2);
	});
});
