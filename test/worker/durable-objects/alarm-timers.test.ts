/**
 * The one "many named timers on one alarm" every object uses (durable-objects/shared/alarm-timers.ts),
 * on a real object's storage: the room's kind (one storage value) and the others' (a SQL table).
 * Times are in 2030, so the object's real alarm never fires during a test.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import {
	AlarmTimers,
	type DueTimer,
	kvTimerStore,
	RETRY_BASE_MS,
	RETRY_MAX_MS,
	sqlTimerStore,
	type TimerHandlers,
	type TimerStore,
} from "../../../durable-objects/shared/alarm-timers";

type Kind = "watchdog" | "notify" | "routine";

const T0 = Date.parse("2030-01-01T00:00:00Z");

/** A failed handler is logged by name; the tests read the log instead of printing it. */
let logged: MockInstance<typeof console.error>;
beforeEach(() => {
	logged = vi.spyOn(console, "error").mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

const STORES: [string, (storage: DurableObjectStorage) => TimerStore][] = [
	["a storage value (the room's)", (storage) => kvTimerStore(storage, { timers: "timers", retriesPrefix: "timerRetries:" })],
	["a SQL table (the agent's and the account's)", (storage) => sqlTimerStore(storage)],
];

/** Runs `body` on a fresh object's storage (an IpGuard's: SQLite-backed, and no alarm handler of its own to run). */
function onFreshStorage(body: (storage: DurableObjectStorage) => Promise<void>): Promise<void> {
	const stub = env.IP_GUARD.get(env.IP_GUARD.idFromName(`timers-${crypto.randomUUID()}`));
	return runInDurableObject(stub, (_object, state) => body(state.storage));
}

/** Handlers that record what ran; `failing` kinds throw. */
function recording(failing: Set<Kind>) {
	const ran: string[] = [];
	const handler = async (timer: DueTimer<Kind>) => {
		ran.push(timer.name);
		if (failing.has(timer.kind)) throw new Error(`${timer.name} failed`);
	};
	const handlers: TimerHandlers<Kind> = { watchdog: handler, notify: handler, routine: handler };
	return { ran, handlers };
}

describe.each(STORES)("alarm timers kept in %s", (_where, storeOf) => {
	const timersOn = (storage: DurableObjectStorage) => new AlarmTimers<Kind>(storage, storeOf(storage), { now: () => T0 });

	it("hand back the due timers earliest first, with kind and key, and point the alarm at the earliest", () =>
		onFreshStorage(async (storage) => {
			const timers = timersOn(storage);
			await timers.set("notify", T0 + 300);
			await timers.set("routine:rt_b", T0 + 100);
			await timers.set("routine:rt_a", T0 + 100);
			expect(await storage.getAlarm()).toBe(T0 + 100);
			expect(await timers.dueAt(T0 + 200)).toEqual([
				{ name: "routine:rt_a", kind: "routine", key: "rt_a", dueMs: T0 + 100 },
				{ name: "routine:rt_b", kind: "routine", key: "rt_b", dueMs: T0 + 100 },
			]);
			expect((await timers.dueAt(T0 + 300)).map((t) => t.name)).toEqual(["routine:rt_a", "routine:rt_b", "notify"]);
			expect(await timers.due("notify")).toBe(T0 + 300);
			expect(await timers.due("watchdog")).toBeUndefined();
		}));

	it("clear a timer and re-arm; with none left the alarm goes", () =>
		onFreshStorage(async (storage) => {
			const timers = timersOn(storage);
			await timers.set("watchdog", T0 + 100);
			await timers.set("notify", T0 + 500);
			await timers.clear("watchdog");
			expect(await storage.getAlarm()).toBe(T0 + 500);
			await timers.clear("notify");
			expect(await timers.dueAt(Number.MAX_SAFE_INTEGER)).toEqual([]);
			expect(await storage.getAlarm()).toBeNull();
		}));

	it("retry a throwing handler with a backoff that doubles, without holding back the other due timers", () =>
		onFreshStorage(async (storage) => {
			const timers = timersOn(storage);
			const { ran, handlers } = recording(new Set(["watchdog"]));
			await timers.set("watchdog", T0);
			await timers.set("notify", T0 + 10);
			await timers.fire(handlers, T0 + 10);
			expect(ran).toEqual(["watchdog", "notify"]);
			expect(logged).toHaveBeenCalledWith("timer failed, retrying", "watchdog", "Error");
			// notify ran and went; watchdog waits out its first backoff.
			expect(await timers.due("notify")).toBeUndefined();
			expect(await timers.due("watchdog")).toBe(T0 + 10 + RETRY_BASE_MS);
			await timers.fire(handlers, T0 + 10 + RETRY_BASE_MS);
			expect(await timers.due("watchdog")).toBe(T0 + 10 + 3 * RETRY_BASE_MS);
			// The backoff stops growing at its cap.
			for (let i = 0; i < 6; i++) await timers.fire(handlers, (await timers.due("watchdog")) ?? 0);
			const last = (await timers.dueAt(Number.MAX_SAFE_INTEGER))[0]?.dueMs ?? 0;
			await timers.fire(handlers, last);
			expect(await timers.due("watchdog")).toBe(last + RETRY_MAX_MS);
		}));

	it("forget the retries once the handler succeeds: a later failure starts from the first backoff", () =>
		onFreshStorage(async (storage) => {
			const timers = timersOn(storage);
			const failing = new Set<Kind>(["watchdog"]);
			const { handlers } = recording(failing);
			await timers.set("watchdog", T0);
			await timers.fire(handlers, T0);
			await timers.fire(handlers, T0 + RETRY_BASE_MS);
			failing.clear();
			await timers.fire(handlers, T0 + 3 * RETRY_BASE_MS);
			expect(await timers.due("watchdog")).toBeUndefined();
			failing.add("watchdog");
			await timers.set("watchdog", T0 + 10 * RETRY_BASE_MS);
			await timers.fire(handlers, T0 + 10 * RETRY_BASE_MS);
			expect(await timers.due("watchdog")).toBe(T0 + 11 * RETRY_BASE_MS);
		}));

	it("keep a timer its handler set again for a new time", () =>
		onFreshStorage(async (storage) => {
			const timers = timersOn(storage);
			await timers.set("notify", T0);
			const handlers: TimerHandlers<Kind> = {
				watchdog: async () => undefined,
				routine: async () => undefined,
				notify: () => timers.set("notify", T0 + 1_000),
			};
			await timers.fire(handlers, T0);
			expect(await timers.due("notify")).toBe(T0 + 1_000);
			expect(await storage.getAlarm()).toBe(T0 + 1_000);
		}));
});

describe("a derived timer (the account's webhook outbox)", () => {
	it("is due when its owner says, and a failed run is deferred by the backoff", () =>
		onFreshStorage(async (storage) => {
			let ownerDue: number | null = T0 + 50;
			const timers = new AlarmTimers<Kind>(storage, sqlTimerStore(storage), { now: () => T0, derived: { notify: () => ownerDue } });
			await timers.arm();
			expect(await storage.getAlarm()).toBe(T0 + 50);
			const { ran, handlers } = recording(new Set(["notify"]));
			await timers.fire(handlers, T0 + 50);
			expect(ran).toEqual(["notify"]);
			// The owner still has work due now, but the retry waits out its backoff.
			expect(await timers.due("notify")).toBe(T0 + 50 + RETRY_BASE_MS);
			expect(await storage.getAlarm()).toBe(T0 + 50 + RETRY_BASE_MS);
			const { handlers: succeeding } = recording(new Set());
			ownerDue = null;
			await timers.fire(succeeding, T0 + 50 + RETRY_BASE_MS);
			expect(await timers.dueAt(Number.MAX_SAFE_INTEGER)).toEqual([]);
			expect(await storage.getAlarm()).toBeNull();
		}));
});
