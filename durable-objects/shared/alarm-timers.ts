import { errorName } from "../../src/error-text";
import { addMissingColumns } from "./sql-schema";

/**
 * Many named timers on one Durable Object alarm: the alarm is always set to the earliest due
 * timer, so the object's single alarm slot serves all of them (as the Agents SDK's schedules
 * do). A timer's name is its kind, or its kind and a key (`routine:<id>`); each object hands
 * `fire` one handler per kind, as a `Record`, so a kind without a handler fails to compile.
 *
 * One retry rule: a due timer stays until its handler has succeeded (`settle`); a handler that
 * throws is fired again after a backoff that doubles up to a minute, and does not stop the
 * other due timers. Kept in storage, so timers survive eviction and restarts.
 */
export type TimerName<Kind extends string> = Kind | `${Kind}:${string}`;

export interface DueTimer<Kind extends string> {
	name: TimerName<Kind>;
	kind: Kind;
	/** What follows the kind in the name (`routine:<id>` → `<id>`); empty for a bare kind. */
	key: string;
	/** The due time it fires for. */
	dueMs: number;
}

export type TimerHandlers<Kind extends string> = Record<Kind, (timer: DueTimer<Kind>) => Promise<unknown>>;

/** Where the timers are kept: a storage key (the room's) or a SQL table (the others'). */
export interface TimerStore {
	all(): Promise<Map<string, number>>;
	set(name: string, dueMs: number): Promise<void>;
	/** Removes the timers; with `onlyIfDue`, only while still due at that time (a handler may have set it again). */
	remove(names: string[], onlyIfDue?: number): Promise<void>;
	retries(name: string): Promise<number>;
	setRetries(name: string, count: number): Promise<void>;
}

/** An object whose storage is being erased (shared/erase.ts): its alarm goes with its timers. */
export function dropAlarm(storage: DurableObjectStorage): Promise<void> {
	return storage.deleteAlarm();
}

export const RETRY_BASE_MS = 5_000;
export const RETRY_MAX_MS = 60_000;

export interface AlarmTimersOptions<Kind extends string> {
	/**
	 * Timers whose due time their owner keeps (the webhook outbox's next attempt): read when the
	 * alarm is armed and when it fires. A retry of one is stored and defers it until then.
	 */
	derived?: Partial<Record<Kind, () => number | null>>;
	now?: () => number;
}

export class AlarmTimers<Kind extends string> {
	readonly #storage: DurableObjectStorage;
	readonly #store: TimerStore;
	readonly #derived: [Kind, () => number | null][];
	readonly #now: () => number;

	constructor(storage: DurableObjectStorage, store: TimerStore, options: AlarmTimersOptions<Kind> = {}) {
		this.#storage = storage;
		this.#store = store;
		this.#derived = Object.entries(options.derived ?? {}) as [Kind, () => number | null][];
		this.#now = options.now ?? Date.now;
	}

	async set(name: TimerName<Kind>, dueMs: number): Promise<void> {
		await this.#store.set(name, dueMs);
		await this.arm();
	}

	async clear(...names: TimerName<Kind>[]): Promise<void> {
		await this.#store.remove(names);
		await this.arm();
	}

	/** When a timer is due; undefined when it is not set. */
	async due(name: TimerName<Kind>): Promise<number | undefined> {
		return (await this.#effective()).get(name);
	}

	/** The timers due at `nowMs`, earliest first (then by name), each with the due time it fires for. */
	async dueAt(nowMs: number): Promise<DueTimer<Kind>[]> {
		const due = [...(await this.#effective())].filter(([, at]) => at <= nowMs);
		due.sort(([a, atA], [b, atB]) => atA - atB || (a < b ? -1 : a > b ? 1 : 0));
		return due.map(([name, dueMs]) => {
			const colon = name.indexOf(":");
			const kind = (colon < 0 ? name : name.slice(0, colon)) as Kind;
			return { name: name as TimerName<Kind>, kind, key: colon < 0 ? "" : name.slice(colon + 1), dueMs };
		});
	}

	/**
	 * The alarm: runs the handler of each due timer, earliest first. One that succeeds goes
	 * (unless it set itself again); one that throws is retried with backoff, and the rest still run.
	 * A timer of a kind with no handler (left by an older version) goes.
	 */
	async fire(handlers: TimerHandlers<Kind>, nowMs = this.#now()): Promise<void> {
		for (const timer of await this.dueAt(nowMs)) {
			const handler = handlers[timer.kind] as TimerHandlers<Kind>[Kind] | undefined;
			try {
				await handler?.(timer);
				await this.settle(timer.name, timer.dueMs);
			} catch (err) {
				console.error("timer failed, retrying", timer.name, errorName(err));
				await this.retry(timer.name, nowMs);
			}
		}
		await this.arm();
	}

	/** A timer's handler succeeded: it goes, unless the handler set it again (a new due time). */
	async settle(name: TimerName<Kind>, firedFor: number): Promise<void> {
		await this.#store.setRetries(name, 0);
		await this.#store.remove([name], firedFor);
		await this.arm();
	}

	/** A timer's handler failed: it fires again after a backoff that doubles up to a minute. */
	async retry(name: TimerName<Kind>, nowMs: number): Promise<void> {
		const retries = await this.#store.retries(name);
		await this.#store.set(name, nowMs + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** retries));
		await this.#store.setRetries(name, retries + 1);
		await this.arm();
	}

	/** Points the one alarm at the earliest timer, or removes it when none is left. */
	async arm(): Promise<void> {
		const next = Math.min(...(await this.#effective()).values());
		// A timer already due (or set in the past) fires as soon as the alarm can run.
		if (Number.isFinite(next)) await this.#storage.setAlarm(Math.max(next, this.#now()));
		else await this.#storage.deleteAlarm();
	}

	/** Stored timers, and derived ones: a stored entry (a retry) defers a derived timer of that name. */
	async #effective(): Promise<Map<string, number>> {
		const timers = await this.#store.all();
		for (const [name, dueAt] of this.#derived) {
			const at = dueAt();
			if (at !== null && !timers.has(name)) timers.set(name, at);
		}
		return timers;
	}
}

/** Timers as one storage value (a name → due map), retry counts under their own keys: the MeetingRoom's. */
export function kvTimerStore(storage: DurableObjectStorage, keys: { timers: string; retriesPrefix: string }): TimerStore {
	const read = async () => (await storage.get<Record<string, number>>(keys.timers)) ?? {};
	return {
		all: async () => new Map(Object.entries(await read()).filter((e): e is [string, number] => typeof e[1] === "number")),
		async set(name, dueMs) {
			await storage.put(keys.timers, { ...(await read()), [name]: dueMs });
		},
		async remove(names, onlyIfDue) {
			const timers = await read();
			const gone = names.filter((name) => name in timers && (onlyIfDue === undefined || timers[name] === onlyIfDue));
			if (gone.length === 0 && onlyIfDue !== undefined) return;
			for (const name of gone) delete timers[name];
			await storage.put(keys.timers, timers);
		},
		retries: async (name) => (await storage.get<number>(keys.retriesPrefix + name)) ?? 0,
		async setRetries(name, count) {
			if (count === 0) await storage.delete(keys.retriesPrefix + name);
			else await storage.put(keys.retriesPrefix + name, count);
		},
	};
}

/** The SQL table of `sqlTimerStore`. */
export const ALARM_TIMERS_TABLE = "alarm_timers";

/** Timers as rows of a SQLite table, for objects that may hold many (a user's routines). */
export function sqlTimerStore(storage: DurableObjectStorage): TimerStore {
	const sql = storage.sql;
	sql.exec(`CREATE TABLE IF NOT EXISTS ${ALARM_TIMERS_TABLE} (name TEXT PRIMARY KEY, due_ms INTEGER NOT NULL)`);
	addMissingColumns(sql, ALARM_TIMERS_TABLE, { retries: "INTEGER NOT NULL DEFAULT 0" });
	return {
		all: async () =>
			new Map(
				sql
					.exec<{ name: string; due_ms: number }>(`SELECT name, due_ms FROM ${ALARM_TIMERS_TABLE}`)
					.toArray()
					.map((row) => [row.name, row.due_ms]),
			),
		async set(name, dueMs) {
			sql.exec(
				`INSERT INTO ${ALARM_TIMERS_TABLE} (name, due_ms) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET due_ms = excluded.due_ms`,
				name,
				dueMs,
			);
		},
		async remove(names, onlyIfDue) {
			for (const name of names) {
				if (onlyIfDue === undefined) sql.exec(`DELETE FROM ${ALARM_TIMERS_TABLE} WHERE name = ?`, name);
				else sql.exec(`DELETE FROM ${ALARM_TIMERS_TABLE} WHERE name = ? AND due_ms = ?`, name, onlyIfDue);
			}
		},
		retries: async (name) =>
			sql.exec<{ retries: number }>(`SELECT retries FROM ${ALARM_TIMERS_TABLE} WHERE name = ?`, name).toArray()[0]?.retries ?? 0,
		async setRetries(name, count) {
			sql.exec(`UPDATE ${ALARM_TIMERS_TABLE} SET retries = ? WHERE name = ?`, count, name);
		},
	};
}

/** Where a per-meeting object (MeetingRoom, MeetingStream) keeps its timers: the keys rooms have always used. */
export const KV_TIMER_KEYS = { timers: "timers", retriesPrefix: "timerRetries:" } as const;

/** Timers kept as one storage value, under KV_TIMER_KEYS. */
export function kvAlarmTimers<Kind extends string>(storage: DurableObjectStorage): AlarmTimers<Kind> {
	return new AlarmTimers<Kind>(storage, kvTimerStore(storage, KV_TIMER_KEYS));
}
