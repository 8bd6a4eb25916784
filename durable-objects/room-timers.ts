/**
 * Many named timers on one Durable Object alarm: the alarm is always set to the earliest due
 * timer, and `takeDue` hands back the timers whose time has come. Kept in storage, so timers
 * survive eviction and restarts.
 */
export type TimerName = "watchdog" | "stop_deadline" | "auto_join";

export class RoomTimers {
	constructor(private readonly storage: DurableObjectStorage) {}

	private async all(): Promise<Partial<Record<TimerName, number>>> {
		return (await this.storage.get<Partial<Record<TimerName, number>>>("timers")) ?? {};
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

	/** Removes and returns the timers due at `nowMs`, re-arming the alarm for the rest. */
	async takeDue(nowMs: number): Promise<TimerName[]> {
		const timers = await this.all();
		const due = (Object.keys(timers) as TimerName[]).filter((name) => (timers[name] ?? Infinity) <= nowMs);
		for (const name of due) delete timers[name];
		await this.save(timers);
		return due;
	}

	private async save(timers: Partial<Record<TimerName, number>>): Promise<void> {
		await this.storage.put("timers", timers);
		const next = Math.min(...Object.values(timers).filter((t): t is number => typeof t === "number"));
		if (Number.isFinite(next)) await this.storage.setAlarm(next);
		else await this.storage.deleteAlarm();
	}
}
