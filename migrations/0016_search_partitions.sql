-- Search partitioned by scope (docs/api.md#search, security review findings 1 and 2).
--
-- The one FTS5 index over every account (0013) goes: a search scanned every account's words,
-- and bm25's statistics over the whole table let hit order reveal other accounts' words. Each
-- scope now has its own index in a TranscriptIndex Durable Object's SQLite. A meeting's scope is
-- its workspace when it is bound to one, else its owner, so everyone who may search a partition
-- may read every row of it.
--
-- D1 keeps a log of what changed per scope, written by triggers so that every write path (the
-- room's upserts, a draft replaced by its confirmation, a rebinding, a meeting or a user deleted
-- with its segments by cascade) is logged without the writers knowing. A partition pulls its
-- scope's entries before it answers and deletes those it has applied. An entry only names what
-- to look at again (a segment, a meeting's record, or a whole meeting); the partition reads the
-- current rows and keeps them only while their meeting is still in its scope.
DROP TRIGGER transcript_search_insert;
DROP TRIGGER transcript_search_delete;
DROP TRIGGER transcript_search_update;
DROP TABLE transcript_search;
DROP VIEW transcript_search_source;

-- segment_id: a segment's rowid (transcript_segments.id); 0 for the meeting's record (platform,
-- start time, owner); NULL for the whole meeting. One pending entry per segment (a draft rewritten
-- ten times is looked at once): the triggers delete the older one rather than use a conflict
-- clause, since the upsert that fires them imposes its own conflict policy on their statements.
CREATE TABLE search_changes (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	scope TEXT NOT NULL,
	meeting_id INTEGER NOT NULL,
	segment_id INTEGER
);
CREATE INDEX search_changes_scope ON search_changes(scope, seq);
CREATE INDEX search_changes_segment ON search_changes(segment_id);

CREATE TRIGGER search_segment_inserted AFTER INSERT ON transcript_segments BEGIN
	DELETE FROM search_changes WHERE segment_id = new.id;
	INSERT INTO search_changes (scope, meeting_id, segment_id)
		SELECT CASE WHEN workspace_id IS NOT NULL THEN 'w:' || workspace_id ELSE 'u:' || user_id END, id, new.id FROM meetings WHERE id = new.meeting_id;
END;
CREATE TRIGGER search_segment_updated AFTER UPDATE OF text, speaker, absolute_start_time ON transcript_segments BEGIN
	DELETE FROM search_changes WHERE segment_id = new.id;
	INSERT INTO search_changes (scope, meeting_id, segment_id)
		SELECT CASE WHEN workspace_id IS NOT NULL THEN 'w:' || workspace_id ELSE 'u:' || user_id END, id, new.id FROM meetings WHERE id = new.meeting_id;
END;
-- A meeting deleted with its segments is logged by search_meeting_deleted; this one is for a segment deleted alone.
CREATE TRIGGER search_segment_deleted AFTER DELETE ON transcript_segments BEGIN
	DELETE FROM search_changes WHERE segment_id = old.id;
	INSERT INTO search_changes (scope, meeting_id, segment_id)
		SELECT CASE WHEN workspace_id IS NOT NULL THEN 'w:' || workspace_id ELSE 'u:' || user_id END, id, old.id FROM meetings WHERE id = old.meeting_id;
END;
CREATE TRIGGER search_meeting_deleted AFTER DELETE ON meetings BEGIN
	INSERT INTO search_changes (scope, meeting_id, segment_id) VALUES (CASE WHEN old.workspace_id IS NOT NULL THEN 'w:' || old.workspace_id ELSE 'u:' || old.user_id END, old.id, NULL);
END;
-- Rebinding moves the whole meeting: out of the partition it leaves, into the one it joins.
CREATE TRIGGER search_meeting_moved AFTER UPDATE OF workspace_id, user_id ON meetings
	WHEN (CASE WHEN old.workspace_id IS NOT NULL THEN 'w:' || old.workspace_id ELSE 'u:' || old.user_id END) IS NOT (CASE WHEN new.workspace_id IS NOT NULL THEN 'w:' || new.workspace_id ELSE 'u:' || new.user_id END)
BEGIN
	INSERT INTO search_changes (scope, meeting_id, segment_id) VALUES (CASE WHEN old.workspace_id IS NOT NULL THEN 'w:' || old.workspace_id ELSE 'u:' || old.user_id END, old.id, NULL);
	INSERT INTO search_changes (scope, meeting_id, segment_id) VALUES (CASE WHEN new.workspace_id IS NOT NULL THEN 'w:' || new.workspace_id ELSE 'u:' || new.user_id END, new.id, NULL);
END;
-- What the filters read from the meeting: its platform, start time and owner.
CREATE TRIGGER search_meeting_described AFTER UPDATE OF platform, start_time, user_id ON meetings
	WHEN old.platform IS NOT new.platform OR old.start_time IS NOT new.start_time OR old.user_id IS NOT new.user_id
BEGIN
	INSERT INTO search_changes (scope, meeting_id, segment_id) VALUES (CASE WHEN new.workspace_id IS NOT NULL THEN 'w:' || new.workspace_id ELSE 'u:' || new.user_id END, new.id, 0);
END;

-- The segments already stored: each meeting with a transcript is loaded into its partition by
-- that partition's first search (lazily, in pages; the search answers 503 with Retry-After until done).
INSERT INTO search_changes (scope, meeting_id, segment_id)
	SELECT CASE WHEN workspace_id IS NOT NULL THEN 'w:' || workspace_id ELSE 'u:' || user_id END, id, NULL
	FROM meetings WHERE EXISTS (SELECT 1 FROM transcript_segments WHERE meeting_id = meetings.id);
