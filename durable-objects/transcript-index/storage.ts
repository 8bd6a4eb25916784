import { ALARM_TIMERS_TABLE } from "../shared/alarm-timers";

/** Everything a TranscriptIndex keeps in its storage (test/worker/durable-objects/storage-maps.test.ts). */
export const TRANSCRIPT_INDEX_STORAGE = {
	keys: {},
	tables: {
		meetings: "meetings",
		segments: "segments",
		/** FTS5's table and the shadow tables it keeps for it. */
		segmentWords: "segment_words",
		segmentWordsConfig: "segment_words_config",
		segmentWordsContent: "segment_words_content",
		segmentWordsData: "segment_words_data",
		segmentWordsDocsize: "segment_words_docsize",
		segmentWordsIdx: "segment_words_idx",
		refills: "refills",
		pulled: "pulled",
		/** shared/alarm-timers.ts: the `pull` timer, when a catch-up goes on by alarm. */
		alarmTimers: ALARM_TIMERS_TABLE,
	},
} as const;

/**
 * A partition's tables. `segment_words` holds what is searched (the text, with the two marks the
 * search answer uses turned into spaces, and the speaker); `segments` and `meetings` what the
 * filters read. `prefix='3'` keeps an index of every word's first three letters, the shortest
 * prefix a query may ask for (src/search/search-query.ts), so such a prefix is one lookup.
 */
export const INDEX_SCHEMA = `
CREATE TABLE IF NOT EXISTS meetings (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, platform TEXT NOT NULL, start_time TEXT);
CREATE TABLE IF NOT EXISTS segments (id INTEGER PRIMARY KEY, meeting_id INTEGER NOT NULL, speaker TEXT NOT NULL, said_at TEXT);
CREATE INDEX IF NOT EXISTS segments_meeting ON segments(meeting_id);
CREATE VIRTUAL TABLE IF NOT EXISTS segment_words USING fts5(text, speaker, tokenize = 'unicode61 remove_diacritics 2', prefix = '3');
-- Meetings being loaded whole (a backfill, a rebinding), page by page: the last segment id loaded.
CREATE TABLE IF NOT EXISTS refills (meeting_id INTEGER PRIMARY KEY, after_id INTEGER NOT NULL);
-- The last change of D1's search_changes applied.
CREATE TABLE IF NOT EXISTS pulled (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL, scope TEXT NOT NULL);
`;
