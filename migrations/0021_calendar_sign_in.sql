-- Calendars you sign into (docs/api.md#calendars-you-sign-into): Google Calendar and Microsoft 365
-- connections beside the ICS feeds, with their sealed OAuth tokens, the provider's sync cursor,
-- change-notification channel, and the auto-join rules every connection kind applies.
ALTER TABLE calendar_connections ADD COLUMN kind TEXT NOT NULL DEFAULT 'ics';
-- The signed-in address (Google email, Microsoft UPN); null for ICS feeds.
ALTER TABLE calendar_connections ADD COLUMN account TEXT;
-- {access_token, refresh_token, expires_at} sealed like the feed address (AES-GCM under SECRETS_KEY).
ALTER TABLE calendar_connections ADD COLUMN oauth_tokens_sealed TEXT;
-- Google nextSyncToken or Graph @odata.deltaLink: the next sync asks only for what changed.
ALTER TABLE calendar_connections ADD COLUMN sync_cursor TEXT;
ALTER TABLE calendar_connections ADD COLUMN organizer_only INTEGER NOT NULL DEFAULT 0;
ALTER TABLE calendar_connections ADD COLUMN min_attendees INTEGER;
-- Google push channel id or Graph subscription id, the SHA-256 of the channel token / clientState
-- it presents, Google's resourceId (channels.stop needs it) and when the channel ends.
ALTER TABLE calendar_connections ADD COLUMN push_channel_id TEXT;
ALTER TABLE calendar_connections ADD COLUMN push_secret_hash TEXT;
ALTER TABLE calendar_connections ADD COLUMN push_resource_id TEXT;
ALTER TABLE calendar_connections ADD COLUMN push_expires_at TEXT;
CREATE UNIQUE INDEX calendar_connections_push_channel ON calendar_connections(push_channel_id) WHERE push_channel_id IS NOT NULL;

-- Signed-in connections sync in the background too.
DROP INDEX calendar_connections_due;
CREATE INDEX calendar_connections_due ON calendar_connections(next_sync_at)
	WHERE enabled = 1 AND (ics_url_sealed IS NOT NULL OR kind <> 'ics');

-- A sign-in under way: the state handed to the provider (stored as its SHA-256, used once), the
-- SHA-256 of the cookie that binds it to the browser that started it, the PKCE verifier sealed,
-- and what the new connection is to be. Ten minutes to come back.
CREATE TABLE calendar_oauth_states (
	state_hash TEXT PRIMARY KEY,
	browser_hash TEXT NOT NULL,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	provider TEXT NOT NULL,
	verifier_sealed TEXT NOT NULL,
	redirect_uri TEXT NOT NULL,
	name TEXT,
	auto_join INTEGER NOT NULL DEFAULT 1,
	bot_name TEXT,
	return_to TEXT NOT NULL,
	created_at TEXT NOT NULL,
	expires_at TEXT NOT NULL
);
CREATE INDEX calendar_oauth_states_expiry ON calendar_oauth_states(expires_at);
