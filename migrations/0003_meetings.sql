-- One record per meeting, from plan to transcript.
CREATE TABLE meetings (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	platform TEXT NOT NULL,
	native_meeting_id TEXT,
	constructed_meeting_url TEXT,
	passcode TEXT,
	status TEXT NOT NULL,
	workspace_id TEXT,
	auto_join INTEGER NOT NULL DEFAULT 1,
	scheduled_at TEXT,
	start_time TEXT,
	end_time TEXT,
	completion_reason TEXT,
	failure_stage TEXT,
	bot_name TEXT,
	bot_options TEXT NOT NULL DEFAULT '{}',
	data TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL,
	updated_at TEXT NOT NULL
);
CREATE INDEX meetings_user ON meetings(user_id, id DESC);
CREATE INDEX meetings_link ON meetings(platform, native_meeting_id);
CREATE INDEX meetings_workspace ON meetings(workspace_id) WHERE workspace_id IS NOT NULL;

-- Who besides the owner may read a meeting bound to a workspace.
CREATE TABLE workspace_members (
	workspace_id TEXT NOT NULL,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	PRIMARY KEY (workspace_id, user_id)
);

-- Segments outlive the MeetingRoom; upserted by segment_id (a draft replaced by its confirmation).
CREATE TABLE transcript_segments (
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
	PRIMARY KEY (meeting_id, segment_id)
);
CREATE INDEX transcript_segments_order ON transcript_segments(meeting_id, start);

CREATE TABLE chat_messages (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	sender TEXT NOT NULL,
	text TEXT NOT NULL,
	timestamp REAL NOT NULL,
	is_from_bot INTEGER NOT NULL
);
CREATE INDEX chat_messages_meeting ON chat_messages(meeting_id, id);

CREATE TABLE meeting_participants (
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	participant_id TEXT NOT NULL,
	name TEXT NOT NULL,
	joined_at TEXT,
	left_at TEXT,
	PRIMARY KEY (meeting_id, participant_id)
);

CREATE TABLE transcript_shares (
	share_id TEXT PRIMARY KEY,
	meeting_id INTEGER NOT NULL REFERENCES meetings(id) ON DELETE CASCADE,
	user_id INTEGER NOT NULL,
	expires_at TEXT NOT NULL,
	created_at TEXT NOT NULL
);
