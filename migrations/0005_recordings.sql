-- Meeting audio, stored in R2; a recording exists only once audio capture succeeded.
CREATE TABLE recordings (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	user_id INTEGER NOT NULL,
	session_uid TEXT NOT NULL,
	source TEXT NOT NULL,
	status TEXT NOT NULL,
	error_message TEXT,
	created_at TEXT NOT NULL,
	completed_at TEXT
);
CREATE INDEX recordings_user ON recordings(user_id, id DESC);
CREATE INDEX recordings_meeting ON recordings(meeting_id);

CREATE TABLE media_files (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	recording_id INTEGER NOT NULL REFERENCES recordings(id) ON DELETE CASCADE,
	type TEXT NOT NULL,
	format TEXT NOT NULL,
	storage_backend TEXT NOT NULL,
	storage_key TEXT NOT NULL,
	file_size_bytes INTEGER NOT NULL,
	duration_seconds REAL NOT NULL,
	metadata TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL
);
CREATE INDEX media_files_recording ON media_files(recording_id);
