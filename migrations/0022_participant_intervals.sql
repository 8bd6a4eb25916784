-- Who was there (docs/api.md#participants): every stretch a participant was in the meeting, so
-- someone who leaves and rejoins has one row per stay. `meeting_participants` keeps one row per
-- person (name, first join, last leave); this table keeps the stays. A NULL `left_at` is a stay
-- the bot never saw end (still there, or there when the bot left); a NULL `joined_at` a leave
-- of someone already there when the bot came in without a join before it.
CREATE TABLE participant_intervals (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	participant_id TEXT NOT NULL,
	joined_at TEXT,
	left_at TEXT
);
-- A leave closes the participant's open stay; a read lists a meeting's stays in order.
CREATE INDEX participant_intervals_meeting ON participant_intervals(meeting_id, participant_id, id);

-- Meetings from before: the one stay their row knows (first join to last leave).
INSERT INTO participant_intervals (meeting_id, participant_id, joined_at, left_at)
	SELECT meeting_id, participant_id, joined_at, left_at FROM meeting_participants
	WHERE joined_at IS NOT NULL OR left_at IS NOT NULL;
