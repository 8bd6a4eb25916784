import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

// Mirrors migrations/*.sql; the SQL files are the source of truth for the database.

export const users = sqliteTable("users", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	email: text("email").notNull().unique(),
	name: text("name"),
	maxConcurrentBots: integer("max_concurrent_bots").notNull().default(3),
	data: text("data", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
	createdAt: text("created_at").notNull(),
});

export const apiTokens = sqliteTable(
	"api_tokens",
	{
		id: integer("id").primaryKey({ autoIncrement: true }),
		userId: integer("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		tokenHash: text("token_hash").notNull().unique(),
		scopes: text("scopes").notNull().default(""),
		name: text("name"),
		createdAt: text("created_at").notNull(),
		expiresAt: text("expires_at"),
	},
	(t) => [index("api_tokens_user").on(t.userId)],
);

export const accountSettings = sqliteTable("account_settings", {
	userId: integer("user_id")
		.primaryKey()
		.references(() => users.id, { onDelete: "cascade" }),
	modelMode: text("model_mode"),
	modelName: text("model_name"),
	meetingModel: text("meeting_model"),
	modelBaseUrl: text("model_base_url"),
	modelApiKeySealed: text("model_api_key_sealed"),
	transcriptionUrl: text("transcription_url"),
	transcriptionTokenSealed: text("transcription_token_sealed"),
	webhookUrl: text("webhook_url"),
	webhookSecretSealed: text("webhook_secret_sealed"),
	webhookEvents: text("webhook_events", { mode: "json" }).$type<Record<string, boolean>>(),
	updatedAt: text("updated_at").notNull(),
});

export const webhookDeliveries = sqliteTable(
	"webhook_deliveries",
	{
		id: integer("id").primaryKey({ autoIncrement: true }),
		userId: integer("user_id")
			.notNull()
			.references(() => users.id, { onDelete: "cascade" }),
		eventType: text("event_type").notNull(),
		eventId: text("event_id").notNull(),
		targetHost: text("target_host").notNull(),
		outcome: text("outcome").notNull(),
		statusCode: integer("status_code"),
		attempt: integer("attempt").notNull(),
		meetingId: integer("meeting_id"),
		createdAt: text("created_at").notNull(),
	},
	(t) => [index("webhook_deliveries_user").on(t.userId, t.id)],
);

export type UserRow = typeof users.$inferSelect;
export type ApiTokenRow = typeof apiTokens.$inferSelect;
export type AccountSettingsRow = typeof accountSettings.$inferSelect;
