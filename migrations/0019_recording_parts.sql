-- Recordings streamed in parts while the meeting runs (docs/bot-channel.md#recording-parts).
-- A media file is either one R2 object (`parts` NULL: the WAV upload) or parts 1..`parts` in
-- order (a streamed WebM file, whose `storage_key` is then the prefix its parts are stored under).
-- `status`: `in_progress` while its bot still streams it, `completed` once completed (by the bot,
-- or by the Worker for a bot that never did).
ALTER TABLE media_files ADD COLUMN parts INTEGER;
ALTER TABLE media_files ADD COLUMN status TEXT NOT NULL DEFAULT 'completed';
-- One streamed file of each type per recording: two first parts sent at once find the same file.
CREATE UNIQUE INDEX media_files_streamed ON media_files(recording_id, type) WHERE parts IS NOT NULL;

-- One row per stored part. The R2 key is fixed per (file, part): a re-PUT of a part overwrites its
-- object, so no replaced part is left behind. `media_seconds`: the file's length through this part.
CREATE TABLE media_file_parts (
	media_file_id INTEGER NOT NULL REFERENCES media_files(id) ON DELETE CASCADE,
	part_number INTEGER NOT NULL,
	storage_key TEXT NOT NULL,
	bytes INTEGER NOT NULL,
	media_seconds REAL NOT NULL,
	created_at TEXT NOT NULL,
	PRIMARY KEY (media_file_id, part_number)
);

-- The sweep that completes recordings whose bot never did finds them by status.
CREATE INDEX recordings_in_progress ON recordings(status) WHERE status = 'in_progress';
