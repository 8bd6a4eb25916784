-- Named ICS calendar connections. The feed address is a credential: stored sealed (AES-GCM under
-- SECRETS_KEY), shown only as `ics_url_masked`; deleting a connection deletes the row, so the
-- secret goes at once.
CREATE TABLE calendar_connections (
	id TEXT PRIMARY KEY,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	name TEXT NOT NULL,
	ics_url_sealed TEXT,
	ics_url_masked TEXT,
	auto_join INTEGER NOT NULL DEFAULT 1,
	bot_name TEXT NOT NULL,
	enabled INTEGER NOT NULL DEFAULT 1,
	-- Where bots reach the gateway, remembered from the last request, for background syncs.
	public_base_url TEXT,
	next_sync_at TEXT,
	sync_lease_until TEXT,
	last_sync_at TEXT,
	last_error TEXT,
	last_counts TEXT,
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX calendar_connections_user ON calendar_connections(user_id, created_at);
CREATE INDEX calendar_connections_due ON calendar_connections(next_sync_at) WHERE enabled = 1 AND ics_url_sealed IS NOT NULL;

-- One row per (connection, ICS UID): which meeting the event plans. The same UID on two of a
-- user's connections points at one meeting, which then has two calendar sources.
CREATE TABLE calendar_events (
	connection_id TEXT NOT NULL REFERENCES calendar_connections(id) ON DELETE CASCADE,
	uid TEXT NOT NULL,
	user_id INTEGER NOT NULL,
	meeting_id INTEGER REFERENCES meetings(id) ON DELETE SET NULL,
	-- planned: the event has (or had) a plan; deferred: its link is held by another open meeting;
	-- cancelled: the event is cancelled in the feed.
	state TEXT NOT NULL,
	-- The event as last imported (occurrence, title, link, attendees) and the connection's
	-- settings applied to its plan; equal fingerprints make a second sync change nothing.
	event_fingerprint TEXT,
	settings_fingerprint TEXT,
	-- 1 when the meeting was a manual plan that the calendar adopted; it outlives the calendar.
	adopted INTEGER NOT NULL DEFAULT 0,
	-- The scheduled_at the meeting's auto-join was armed for in its room (NULL: not armed).
	-- Plans are armed a day ahead (CALENDAR_ARM_AHEAD_S), not at import, so that importing
	-- thousands of plans does not wake thousands of rooms; the scheduled sweep arms the rest.
	armed_for TEXT,
	updated_at TEXT NOT NULL,
	PRIMARY KEY (connection_id, uid)
);
CREATE INDEX calendar_events_user_uid ON calendar_events(user_id, uid);
CREATE INDEX calendar_events_meeting ON calendar_events(meeting_id) WHERE meeting_id IS NOT NULL;

-- The legacy user-wide bot name (PUT /user/calendar `bot_name`), the fallback for new connections.
CREATE TABLE calendar_preferences (
	user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	bot_name TEXT,
	updated_at TEXT NOT NULL
);
