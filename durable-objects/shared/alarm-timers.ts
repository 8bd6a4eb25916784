/**
 * Many timers on a user's agent object, one alarm: every routine's next run, a running
 * turn's heartbeat, and retries, keyed by name. The alarm is always set to the earliest due
 * timer, so the object's single alarm slot serves all of them (as RoomTimers does for rooms,
 * here in SQLite because a user may hold many routines).
 */
export class AlarmTimers {
	constructor(private readonly storage: DurableObjectStorage) {
		storage.sql.exec("CREATE TABLE IF NOT EXISTS alarm_timers (name TEXT PRIMARY KEY, due_ms INTEGER NOT NULL)");
	}

	async set(name: string, dueMs: number): Promise<void> {
		this.storage.sql.exec(
			"INSERT INTO alarm_timers (name, due_ms) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET due_ms = excluded.due_ms",
			name,
			dueMs,
		);
		await this.arm();
	}

	async clear(name: string): Promise<void> {
		this.storage.sql.exec("DELETE FROM alarm_timers WHERE name = ?", name);
		await this.arm();
	}

	due(name: string): number | null {
		const row = this.storage.sql.exec<{ due_ms: number }>("SELECT due_ms FROM alarm_timers WHERE name = ?", name).toArray()[0];
		return row?.due_ms ?? null;
	}

	/** The timers due at `nowMs`, earliest first, each with the due time it fires for. */
	dueAt(nowMs: number): { name: string; dueMs: number }[] {
		return this.storage.sql
			.exec<{ name: string; due_ms: number }>("SELECT name, due_ms FROM alarm_timers WHERE due_ms <= ? ORDER BY due_ms, name", nowMs)
			.toArray()
			.map((r) => ({ name: r.name, dueMs: r.due_ms }));
	}

	/** A timer's work is done: it goes, unless that work set it again for a new time. */
	async settle(name: string, firedFor: number): Promise<void> {
		this.storage.sql.exec("DELETE FROM alarm_timers WHERE name = ? AND due_ms = ?", name, firedFor);
		await this.arm();
	}

	/** Points the one alarm at the earliest timer, or removes it when none is left. */
	async arm(): Promise<void> {
		const next = this.storage.sql.exec<{ next: number | null }>("SELECT MIN(due_ms) AS next FROM alarm_timers").one().next;
		if (next === null) await this.storage.deleteAlarm();
		// A timer already due fires as soon as the alarm can run.
		else await this.storage.setAlarm(Math.max(next, Date.now()));
	}
}
