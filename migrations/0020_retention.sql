-- Retention (docs/retention.md): how long an ended meeting's media, screenshots, diagnostics,
-- search rows and stream log are kept. An account's own window, in whole days, overrides the
-- deployment's RETENTION_DAYS; NULL falls through to it (0 there keeps everything until deleted).
ALTER TABLE account_settings ADD COLUMN retention_days INTEGER;

-- When the retention sweep removed the meeting's media and the rest; NULL while they are kept.
-- The record and its transcript stay.
ALTER TABLE meetings ADD COLUMN media_expired_at TEXT;

-- The sweep reads an account's ended meetings not yet swept, oldest end first.
CREATE INDEX meetings_retention ON meetings(user_id, end_time)
	WHERE media_expired_at IS NULL AND status IN ('completed', 'failed');

-- A swept meeting leaves its search partition: the partition drops it and loads it again, and
-- the loading reads no segment of a meeting whose media expired (src/search/search-changes.ts).
CREATE TRIGGER search_meeting_expired AFTER UPDATE OF media_expired_at ON meetings
	WHEN old.media_expired_at IS NULL AND new.media_expired_at IS NOT NULL
BEGIN
	INSERT INTO search_changes (scope, meeting_id, segment_id) VALUES (CASE WHEN new.workspace_id IS NOT NULL THEN 'w:' || new.workspace_id ELSE 'u:' || new.user_id END, new.id, NULL);
END;
