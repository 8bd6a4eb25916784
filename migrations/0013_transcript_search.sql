-- Full-text search over transcript segments (GET /transcripts/search, docs/api.md#search).
--
-- The index is an external-content FTS5 table keyed on the segment's rowid. The segments table
-- is rebuilt first so that rowid is an `id INTEGER PRIMARY KEY`: an implicit rowid may be
-- renumbered by VACUUM or an export and import, which would silently point the index at other
-- segments; an aliased one never changes. Same columns, same (meeting_id, segment_id) key
-- (now UNIQUE, which the upsert's ON CONFLICT targets just the same), same foreign key.
CREATE TABLE transcript_segments_keyed (
	id INTEGER PRIMARY KEY,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	segment_id TEXT NOT NULL,
	speaker TEXT NOT NULL,
	speaker_source TEXT NOT NULL,
	text TEXT NOT NULL,
	start REAL NOT NULL,
	end REAL NOT NULL,
	language TEXT,
	completed INTEGER NOT NULL,
	confidence REAL,
	words TEXT,
	absolute_start_time TEXT,
	absolute_end_time TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL,
	UNIQUE (meeting_id, segment_id)
);
INSERT INTO transcript_segments_keyed
	(meeting_id, segment_id, speaker, speaker_source, text, start, end, language, completed, confidence, words,
	absolute_start_time, absolute_end_time, created_at, updated_at)
	SELECT meeting_id, segment_id, speaker, speaker_source, text, start, end, language, completed, confidence, words,
	absolute_start_time, absolute_end_time, created_at, updated_at
	FROM transcript_segments ORDER BY meeting_id, start;
DROP TABLE transcript_segments;
ALTER TABLE transcript_segments_keyed RENAME TO transcript_segments;
CREATE INDEX transcript_segments_order ON transcript_segments(meeting_id, start);

-- What the index reads and shows: the segment's text and speaker, with the two control
-- characters the search answer uses to mark matches (src/search/transcript-search.ts) turned
-- into spaces, so text a meeting sends can never forge or shift a highlight. The tokenizer
-- treats both as separators anyway, so the indexed words are the same.
CREATE VIEW transcript_search_source AS
	SELECT id, replace(replace(text, char(1), ' '), char(2), ' ') AS text, speaker FROM transcript_segments;

-- unicode61 folds case and (remove_diacritics 2) accents: "cafe" finds "Café".
CREATE VIRTUAL TABLE transcript_search USING fts5(
	text,
	speaker,
	content = 'transcript_search_source',
	content_rowid = 'id',
	tokenize = 'unicode61 remove_diacritics 2'
);

-- Kept in step by the database itself, so every write path (the room's upserts, a draft
-- replaced by its confirmation, a meeting deleted with its segments by cascade) stays indexed
-- without the writers knowing. An external-content index removes a row by being told the
-- values it indexed, hence the same expression as the view.
CREATE TRIGGER transcript_search_insert AFTER INSERT ON transcript_segments BEGIN
	INSERT INTO transcript_search (rowid, text, speaker)
		VALUES (new.id, replace(replace(new.text, char(1), ' '), char(2), ' '), new.speaker);
END;
CREATE TRIGGER transcript_search_delete AFTER DELETE ON transcript_segments BEGIN
	INSERT INTO transcript_search (transcript_search, rowid, text, speaker)
		VALUES ('delete', old.id, replace(replace(old.text, char(1), ' '), char(2), ' '), old.speaker);
END;
CREATE TRIGGER transcript_search_update AFTER UPDATE OF text, speaker ON transcript_segments BEGIN
	INSERT INTO transcript_search (transcript_search, rowid, text, speaker)
		VALUES ('delete', old.id, replace(replace(old.text, char(1), ' '), char(2), ' '), old.speaker);
	INSERT INTO transcript_search (rowid, text, speaker)
		VALUES (new.id, replace(replace(new.text, char(1), ' '), char(2), ' '), new.speaker);
END;

-- The segments already stored.
INSERT INTO transcript_search (transcript_search) VALUES ('rebuild');
