/**
 * Additive schema changes for a Durable Object's SQLite tables: `CREATE TABLE IF NOT EXISTS`
 * leaves an existing table as it was, so a column added later is added here, once, to the
 * objects created before it.
 */
export function addMissingColumns(sql: SqlStorage, table: string, columns: Record<string, string>): void {
	const present = new Set(
		sql
			.exec<{ name: string }>(`PRAGMA table_info(${table})`)
			.toArray()
			.map((column) => column.name),
	);
	for (const [name, definition] of Object.entries(columns)) {
		if (!present.has(name)) sql.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${definition}`);
	}
}
