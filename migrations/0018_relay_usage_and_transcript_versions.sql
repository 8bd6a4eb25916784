-- Seconds of audio the transcription relay forwarded for each account, per UTC day
-- (src/bots/relay-meter.ts): checked against TRANSCRIPTION_RELAY_DAILY_SECONDS in the same statement that adds to it.
CREATE TABLE transcription_usage (
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	day TEXT NOT NULL,
	seconds REAL NOT NULL,
	PRIMARY KEY (user_id, day)
);
