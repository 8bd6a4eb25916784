import { sql } from "drizzle-orm";
import { type AnySQLiteColumn, index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { MeetingData } from "../shapes/meeting-data";

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
		/** The key's last 4 characters, for telling keys apart (migration 0014); null for older keys. */
		keyHint: text("key_hint"),
		/** The key that minted this one (POST /auth/keys, migration 0017): deleting it deletes this; null when the admin minted it. */
		mintedBy: integer("minted_by").references((): AnySQLiteColumn => apiTokens.id, { onDelete: "cascade" }),
	},
	(t) => [index("api_tokens_user").on(t.userId), index("api_tokens_minted_by").on(t.mintedBy)],
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
	/** The account's transcription engine (migration 0024); null follows TRANSCRIPTION_ENGINE. */
	transcriptionEngine: text("transcription_engine"),
	webhookUrl: text("webhook_url"),
	webhookSecretSealed: text("webhook_secret_sealed"),
	webhookEvents: text("webhook_events", { mode: "json" }).$type<Record<string, boolean>>(),
	/** The account's retention window in whole days (migration 0020); null falls through to RETENTION_DAYS. */
	retentionDays: integer("retention_days"),
	/** The account's custom vocabulary (migration 0025, docs/api.md#vocabulary); null: none. */
	transcriptionVocabulary: text("transcription_vocabulary", { mode: "json" }).$type<string[]>(),
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

export const meetings = sqliteTable("meetings", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	userId: integer("user_id").notNull(),
	platform: text("platform").notNull(),
	nativeMeetingId: text("native_meeting_id"),
	constructedMeetingUrl: text("constructed_meeting_url"),
	passcode: text("passcode"),
	status: text("status").notNull(),
	workspaceId: text("workspace_id"),
	autoJoin: integer("auto_join", { mode: "boolean" }).notNull().default(true),
	scheduledAt: text("scheduled_at"),
	startTime: text("start_time"),
	/** When the bot began its join (its first `joining`, migration 0015): the start of its time to admission. */
	joiningAt: text("joining_at"),
	endTime: text("end_time"),
	completionReason: text("completion_reason"),
	failureStage: text("failure_stage"),
	botName: text("bot_name"),
	botOptions: text("bot_options", { mode: "json" }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
	data: text("data", { mode: "json" }).$type<MeetingData>().notNull().default(sql`'{}'`),
	createdAt: text("created_at").notNull(),
	updatedAt: text("updated_at").notNull(),
	/** When the retention sweep removed its media, screenshots, diagnostics, search rows and stream log (migration 0020). */
	mediaExpiredAt: text("media_expired_at"),
});

export const workspaceMembers = sqliteTable(
	"workspace_members",
	{
		workspaceId: text("workspace_id").notNull(),
		userId: integer("user_id").notNull(),
	},
	(t) => [primaryKey({ columns: [t.workspaceId, t.userId] })],
);

export const transcriptSegments = sqliteTable("transcript_segments", {
	/** The segment's stable rowid (migration 0013), which the search index is keyed on. */
	id: integer("id").primaryKey(),
	meetingId: integer("meeting_id").notNull(),
	segmentId: text("segment_id").notNull(),
	speaker: text("speaker").notNull(),
	speakerSource: text("speaker_source").notNull(),
	text: text("text").notNull(),
	start: real("start").notNull(),
	end: real("end").notNull(),
	language: text("language"),
	completed: integer("completed", { mode: "boolean" }).notNull(),
	confidence: real("confidence"),
	words: text("words", { mode: "json" }).$type<unknown[]>(),
	/** Where the text came from: captions or the engine's name (migration 0024). */
	source: text("source"),
	absoluteStartTime: text("absolute_start_time"),
	absoluteEndTime: text("absolute_end_time"),
	createdAt: text("created_at").notNull(),
	updatedAt: text("updated_at").notNull(),
});

export const chatMessages = sqliteTable("chat_messages", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	meetingId: integer("meeting_id").notNull(),
	sender: text("sender").notNull(),
	text: text("text").notNull(),
	timestamp: real("timestamp").notNull(),
	isFromBot: integer("is_from_bot", { mode: "boolean" }).notNull(),
});

export const meetingParticipants = sqliteTable(
	"meeting_participants",
	{
		meetingId: integer("meeting_id").notNull(),
		participantId: text("participant_id").notNull(),
		name: text("name").notNull(),
		joinedAt: text("joined_at"),
		leftAt: text("left_at"),
	},
	(t) => [primaryKey({ columns: [t.meetingId, t.participantId] })],
);

/** One stay of a participant in a meeting (migrations/0022): a rejoin opens another. */
export const participantIntervals = sqliteTable("participant_intervals", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	meetingId: integer("meeting_id").notNull(),
	participantId: text("participant_id").notNull(),
	joinedAt: text("joined_at"),
	leftAt: text("left_at"),
});

export const transcriptShares = sqliteTable("transcript_shares", {
	shareId: text("share_id").primaryKey(),
	meetingId: integer("meeting_id").notNull(),
	userId: integer("user_id").notNull(),
	/** The key that made the share; null for shares made before keys were recorded. */
	tokenId: integer("token_id"),
	expiresAt: text("expires_at").notNull(),
	createdAt: text("created_at").notNull(),
});

export type MeetingRow = typeof meetings.$inferSelect;
export type SegmentRow = typeof transcriptSegments.$inferSelect;

export const recordings = sqliteTable("recordings", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	meetingId: integer("meeting_id").notNull(),
	userId: integer("user_id").notNull(),
	sessionUid: text("session_uid").notNull(),
	source: text("source").notNull(),
	status: text("status").notNull(),
	errorMessage: text("error_message"),
	createdAt: text("created_at").notNull(),
	completedAt: text("completed_at"),
	/** The attempt whose bot uploaded it; one upload per attempt (migrations/0010). */
	botAttempt: integer("bot_attempt"),
});

export const mediaFiles = sqliteTable("media_files", {
	id: integer("id").primaryKey({ autoIncrement: true }),
	recordingId: integer("recording_id").notNull(),
	type: text("type").notNull(),
	format: text("format").notNull(),
	storageBackend: text("storage_backend").notNull(),
	storageKey: text("storage_key").notNull(),
	fileSizeBytes: integer("file_size_bytes").notNull(),
	durationSeconds: real("duration_seconds").notNull(),
	metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
	createdAt: text("created_at").notNull(),
	/** Null: one object at `storageKey`. A number: a streamed file, parts 1..parts in order under the `storageKey` prefix (migrations/0019). */
	parts: integer("parts"),
	/** `in_progress` while its bot streams it, else `completed`. */
	status: text("status").notNull().default("completed"),
});

/** One stored part of a streamed media file; its R2 key is fixed per (file, part), so a re-PUT overwrites it. */
export const mediaFileParts = sqliteTable(
	"media_file_parts",
	{
		mediaFileId: integer("media_file_id").notNull(),
		partNumber: integer("part_number").notNull(),
		storageKey: text("storage_key").notNull(),
		bytes: integer("bytes").notNull(),
		/** The file's media seconds through the end of this part (X-Media-Seconds). */
		mediaSeconds: real("media_seconds").notNull(),
		createdAt: text("created_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.mediaFileId, t.partNumber] })],
);

export type RecordingRow = typeof recordings.$inferSelect;
export type MediaFileRow = typeof mediaFiles.$inferSelect;
export type MediaFilePartRow = typeof mediaFileParts.$inferSelect;

export const calendarConnections = sqliteTable("calendar_connections", {
	id: text("id").primaryKey(),
	userId: integer("user_id").notNull(),
	name: text("name").notNull(),
	icsUrlSealed: text("ics_url_sealed"),
	icsUrlMasked: text("ics_url_masked"),
	autoJoin: integer("auto_join", { mode: "boolean" }).notNull().default(true),
	botName: text("bot_name").notNull(),
	enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
	/** Unused: bots take their address from PUBLIC_BASE_URL only, never from a stored request origin. */
	publicBaseUrl: text("public_base_url"),
	nextSyncAt: text("next_sync_at"),
	syncLeaseUntil: text("sync_lease_until"),
	lastSyncAt: text("last_sync_at"),
	lastError: text("last_error"),
	lastCounts: text("last_counts", { mode: "json" }).$type<{ created: number; updated: number; cancelled: number }>(),
	createdAt: text("created_at").notNull(),
	updatedAt: text("updated_at").notNull(),
	/** ics, google or microsoft (migration 0021). */
	kind: text("kind").$type<CalendarKind>().notNull().default("ics"),
	account: text("account"),
	oauthTokensSealed: text("oauth_tokens_sealed"),
	syncCursor: text("sync_cursor"),
	organizerOnly: integer("organizer_only", { mode: "boolean" }).notNull().default(false),
	minAttendees: integer("min_attendees"),
	pushChannelId: text("push_channel_id"),
	pushSecretHash: text("push_secret_hash"),
	pushResourceId: text("push_resource_id"),
	pushExpiresAt: text("push_expires_at"),
});

export type CalendarKind = "ics" | "google" | "microsoft";

/** A calendar sign-in under way (migration 0021): single-use, ten minutes. */
export const calendarOauthStates = sqliteTable("calendar_oauth_states", {
	stateHash: text("state_hash").primaryKey(),
	browserHash: text("browser_hash").notNull(),
	userId: integer("user_id").notNull(),
	provider: text("provider").$type<"google" | "microsoft">().notNull(),
	verifierSealed: text("verifier_sealed").notNull(),
	redirectUri: text("redirect_uri").notNull(),
	name: text("name"),
	autoJoin: integer("auto_join", { mode: "boolean" }).notNull().default(true),
	botName: text("bot_name"),
	returnTo: text("return_to").notNull(),
	createdAt: text("created_at").notNull(),
	expiresAt: text("expires_at").notNull(),
});

export const calendarEvents = sqliteTable(
	"calendar_events",
	{
		connectionId: text("connection_id").notNull(),
		uid: text("uid").notNull(),
		userId: integer("user_id").notNull(),
		meetingId: integer("meeting_id"),
		state: text("state").$type<"planned" | "deferred" | "cancelled">().notNull(),
		eventFingerprint: text("event_fingerprint"),
		settingsFingerprint: text("settings_fingerprint"),
		adopted: integer("adopted", { mode: "boolean" }).notNull().default(false),
		armedFor: text("armed_for"),
		updatedAt: text("updated_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.connectionId, t.uid] })],
);

export const calendarPreferences = sqliteTable("calendar_preferences", {
	userId: integer("user_id").primaryKey(),
	botName: text("bot_name"),
	updatedAt: text("updated_at").notNull(),
});

export type CalendarConnectionRow = typeof calendarConnections.$inferSelect;
export type CalendarEventRow = typeof calendarEvents.$inferSelect;
