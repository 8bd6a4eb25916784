/**
 * The drizzle schema (src/db/schema.ts) mirrors what migrations/*.sql build: the SQL files are the
 * source of truth, and a column drizzle does not know is one its queries can neither read nor
 * write (as `transcript_segments.id` from 0013 once was). Compared on the migrated D1: every table
 * drizzle declares, each column's name, type, NOT NULL and primary key; and the tables drizzle
 * leaves to raw SQL stores are named, so a new table is a decision, not an accident.
 */
import { env } from "cloudflare:test";
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import * as schema from "../../../src/db/schema";

/** Tables only raw SQL stores read and write (their stores' headers say why), and SQLite's and D1's own. */
const RAW_ONLY_TABLES = [
	"agent_workspaces",
	"bot_host_credentials",
	"bot_hosts",
	"copilot_meetings",
	"search_changes",
	"transcript_versions",
	"transcription_usage",
	"transcription_usage_meetings",
	"usage_caps",
];

interface ColumnInfo {
	name: string;
	type: string;
	notnull: number;
	pk: number;
}

const drizzleTables = Object.values(schema as Record<string, unknown>)
	.filter((value): value is SQLiteTable => is(value, SQLiteTable))
	.map((table) => getTableConfig(table));

async function migratedTables(): Promise<string[]> {
	const { results } = await env.DB.prepare(
		"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name NOT LIKE 'd1_%' ORDER BY name",
	).all<{ name: string }>();
	// FTS5's own shadow tables belong to their virtual table.
	return results.map((row) => row.name).filter((name) => !/_(data|idx|content|docsize|config)$/.test(name));
}

async function columnsOf(table: string): Promise<ColumnInfo[]> {
	const { results } = await env.DB.prepare('SELECT name, type, "notnull", pk FROM pragma_table_info(?)').bind(table).all<ColumnInfo>();
	return results;
}

describe("the drizzle schema mirrors the migrations", () => {
	it("declares tables", () => {
		expect(drizzleTables.length).toBeGreaterThan(10);
	});

	it("names every migrated table: mirrored by drizzle, or left to raw SQL stores", async () => {
		const declared = new Set(drizzleTables.map((t) => t.name));
		const migrated = await migratedTables();
		expect(migrated.filter((name) => !declared.has(name) && !name.startsWith("_"))).toEqual(RAW_ONLY_TABLES);
		expect(drizzleTables.map((t) => t.name).filter((name) => !migrated.includes(name))).toEqual([]);
	});

	it.each(drizzleTables.map((t) => [t.name, t] as const))("%s: same columns, types, NOT NULL and primary key", async (name, table) => {
		const migrated = await columnsOf(name);
		const expected = migrated
			.map((c) => ({ name: c.name, type: c.type.toLowerCase(), notNull: c.notnull === 1 || c.pk > 0, primaryKey: c.pk > 0 }))
			.sort((a, b) => a.name.localeCompare(b.name));
		const declared = table.columns
			.map((c) => ({
				name: c.name,
				type: c.getSQLType(),
				notNull: c.notNull,
				primaryKey: c.primary || table.primaryKeys.some((k) => k.columns.includes(c)),
			}))
			.sort((a, b) => a.name.localeCompare(b.name));
		expect(declared).toEqual(expected);
	});
});
