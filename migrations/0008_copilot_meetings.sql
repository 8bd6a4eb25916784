-- The live copilots a user started (POST /agent/api/meeting/start): one row per (user, meeting),
-- so relay-health and process find the caller's copilots without asking every meeting's room.
-- `token_id` is the key that started it: a copilot whose key was revoked shows as unauthorized.
CREATE TABLE copilot_meetings (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	platform TEXT NOT NULL,
	native_id TEXT NOT NULL,
	token_id INTEGER NOT NULL,
	started_at TEXT NOT NULL,
	PRIMARY KEY (user_id, meeting_id)
);
CREATE INDEX copilot_meetings_link ON copilot_meetings(user_id, platform, native_id);
