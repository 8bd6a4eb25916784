-- Usage (docs/api.md#usage). The relay's per-account day counts (0018, `transcription_usage`) stay the
-- authority for its daily limit; this adds the same seconds per meeting and day, so a meeting's
-- transcription minutes can be shown. They leave with their meeting; the account's day counts do not.
CREATE TABLE transcription_usage_meetings (
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	seconds REAL NOT NULL,
	PRIMARY KEY (meeting_id, day)
);

-- An account's caps, set by the operator (PUT /admin/users/{id}/usage-caps); NULL is no cap.
-- Checked before a bot is launched (POST /bots, auto-join), never against a bot already running.
CREATE TABLE usage_caps (
	user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	bot_minutes_per_day INTEGER,
	bot_minutes_per_month INTEGER,
	storage_bytes INTEGER,
	updated_at TEXT NOT NULL
);

-- Usage reads an account's meetings that ended in or after a range, or have not ended.
CREATE INDEX meetings_usage ON meetings(user_id, end_time);
