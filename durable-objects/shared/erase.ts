/**
 * Erasing everything a Durable Object keeps (a deleted meeting's room and stream,
 * docs/retention.md): counted first, so the deletion's receipt says what went, then deleted with
 * the alarm. The object's own tables are counted row by row; SQLite's and the runtime's
 * (`sqlite_*`, `_cf_*`) are not the object's data, and FTS5's shadow tables mirror their own.
 */
import { dropAlarm } from "./alarm-timers";

/** What an erased object held: its storage keys and the rows of each of its SQL tables. */
export interface ErasedStorage {
	keys: number;
	rows: Record<string, number>;
}

/** The object's own SQL tables, FTS5 shadow tables left out (they hold what their virtual table holds). */
function ownTables(sql: SqlStorage): string[] {
	const names = sql
		.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
		.toArray()
		.map((row) => row.name)
		.filter((name) => !name.startsWith("sqlite_") && !name.startsWith("_cf_"));
	const virtual = new Set(
		sql
			.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'")
			.toArray()
			.map((row) => row.name),
	);
	return names.filter((name) => ![...virtual].some((v) => name.startsWith(`${v}_`)));
}

/** What the storage holds now, as an erasure would report it. */
export async function storageHeld(storage: DurableObjectStorage): Promise<ErasedStorage> {
	const rows: Record<string, number> = {};
	for (const table of ownTables(storage.sql)) {
		const count = storage.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM "${table.replace(/"/g, '""')}"`).one().n;
		if (count > 0) rows[table] = count;
	}
	return { keys: (await storage.list()).size, rows };
}

/** Deletes every key, table and the alarm; what was there. A second erasure finds nothing and says so. */
export async function eraseStorage(storage: DurableObjectStorage): Promise<ErasedStorage> {
	const held = await storageHeld(storage);
	await dropAlarm(storage);
	await storage.deleteAll();
	return held;
}
