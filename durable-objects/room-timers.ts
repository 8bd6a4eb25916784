/**
 * Many named timers on one Durable Object alarm: the alarm is always set to the earliest due
 * timer, and `due` hands back the timers whose time has come. A due timer stays until its
 * action has succeeded (`settle`); a failed action re-arms it with backoff (`retry`), so one
 * failed write never disables a watchdog or an auto-join. Kept in storage, so timers survive
 * eviction and restarts.
 */
/** Where the timers are kept: one value for all of them, and one retry count per failing timer. */
export const TIMER_KEYS = {
	timers: "timers",
	retries: (name: string) => `timerRetries:${name}`,
} as const;

const RETRY_BASE_MS = 5_000;
const RETRY_MAX_MS = 60_000;

/** Over the timer names an object keeps (a MeetingRoom's, a MeetingStream's). */
export class RoomTimers<TimerName extends string> {
	constructor(private readonly storage: DurableObjectStorage) {}

	private async all(): Promise<Partial<Record<TimerName, number>>> {
		return (await this.storage.get<Partial<Record<TimerName, number>>>(TIMER_KEYS.timers)) ?? {};
	}

	async set(name: TimerName, dueMs: number): Promise<void> {
		const timers = await this.all();
		timers[name] = dueMs;
		await this.save(timers);
	}

	async clear(...names: TimerName[]): Promise<void> {
		const timers = await this.all();
		for (const name of names) delete timers[name];
		await this.save(timers);
	}

	async due(name: TimerName): Promise<number | undefined> {
		return (await this.all())[name];
	}

	/** The timers due at `nowMs`, each with the due time it fired for. */
	async dueAt(nowMs: number): Promise<[TimerName, number][]> {
		const timers = await this.all();
		return (Object.entries(timers) as [TimerName, number][]).filter(([, at]) => at <= nowMs);
	}

	/** A timer's action succeeded: it goes, unless the action set it again (a new due time). */
	async settle(name: TimerName, firedFor: number): Promise<void> {
		await this.storage.delete(TIMER_KEYS.retries(name));
		const timers = await this.all();
		if (timers[name] !== firedFor) return;
		delete timers[name];
		await this.save(timers);
	}

	/** A timer's action failed: it fires again after a backoff that doubles up to a minute. */
	async retry(name: TimerName, nowMs: number): Promise<void> {
		const retries = (await this.storage.get<number>(TIMER_KEYS.retries(name))) ?? 0;
		await this.storage.put(TIMER_KEYS.retries(name), retries + 1);
		await this.set(name, nowMs + Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** retries));
	}

	private async save(timers: Partial<Record<TimerName, number>>): Promise<void> {
		await this.storage.put(TIMER_KEYS.timers, timers);
		const next = Math.min(...Object.values(timers).filter((t): t is number => typeof t === "number"));
		// A timer already due (or set in the past) fires as soon as the alarm can run.
		if (Number.isFinite(next)) await this.storage.setAlarm(Math.max(next, Date.now()));
		else await this.storage.deleteAlarm();
	}
}
