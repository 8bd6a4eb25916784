-- Seconds of audio the transcription relay forwarded for each account, per UTC day
-- (src/bots/relay-meter.ts): checked against TRANSCRIPTION_RELAY_DAILY_SECONDS in the same statement that adds to it.
CREATE TABLE transcription_usage (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	seconds REAL NOT NULL,
	PRIMARY KEY (user_id, day)
);

-- A counter per meeting that moves with every segment stored or replaced
-- (src/meetings/transcript-cache.ts): rendered exports and public shares are kept under it.
-- Segments are only upserted, and leave only with their meeting (whose row here goes with it).
CREATE TABLE transcript_versions (
	meeting_id INTEGER PRIMARY KEY REFERENCES meetings(id) ON DELETE CASCADE,
	version INTEGER NOT NULL
);

-- No OR IGNORE here: the upsert that fires these imposes its own conflict policy on them.
CREATE TRIGGER transcript_version_on_insert AFTER INSERT ON transcript_segments BEGIN
	INSERT INTO transcript_versions (meeting_id, version)
		SELECT new.meeting_id, 0 WHERE NOT EXISTS (SELECT 1 FROM transcript_versions WHERE meeting_id = new.meeting_id);
	UPDATE transcript_versions SET version = version + 1 WHERE meeting_id = new.meeting_id;
END;

CREATE TRIGGER transcript_version_on_update AFTER UPDATE ON transcript_segments BEGIN
	INSERT INTO transcript_versions (meeting_id, version)
		SELECT new.meeting_id, 0 WHERE NOT EXISTS (SELECT 1 FROM transcript_versions WHERE meeting_id = new.meeting_id);
	UPDATE transcript_versions SET version = version + 1 WHERE meeting_id IN (new.meeting_id, old.meeting_id);
END;
