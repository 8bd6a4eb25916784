-- Accounts, API keys and per-account settings.
CREATE TABLE users (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	email TEXT NOT NULL UNIQUE,
	name TEXT,
	max_concurrent_bots INTEGER NOT NULL DEFAULT 3,
	data TEXT NOT NULL DEFAULT '{}',
	created_at TEXT NOT NULL
);

-- Keys are stored only as SHA-256 hashes. An empty scope set is how keys of older installs
-- look; migration 0002 widens those (and only those) to the full set.
CREATE TABLE api_tokens (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	token_hash TEXT NOT NULL UNIQUE,
	scopes TEXT NOT NULL DEFAULT '',
	name TEXT,
	created_at TEXT NOT NULL,
	expires_at TEXT
);
CREATE INDEX api_tokens_user ON api_tokens(user_id);

-- One row per account; a NULL column is "not overridden", falling through to the deployment.
-- Secret columns hold AES-GCM ciphertext, never the clear value.
CREATE TABLE account_settings (
	user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
	model_mode TEXT,
	model_name TEXT,
	meeting_model TEXT,
	model_base_url TEXT,
	model_api_key_sealed TEXT,
	transcription_url TEXT,
	transcription_token_sealed TEXT,
	webhook_url TEXT,
	webhook_secret_sealed TEXT,
	webhook_events TEXT,
	updated_at TEXT NOT NULL
);

CREATE TABLE webhook_deliveries (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	event_type TEXT NOT NULL,
	event_id TEXT NOT NULL,
	target_host TEXT NOT NULL,
	outcome TEXT NOT NULL,
	status_code INTEGER,
	attempt INTEGER NOT NULL,
	meeting_id INTEGER,
	created_at TEXT NOT NULL
);
CREATE INDEX webhook_deliveries_user ON webhook_deliveries(user_id, id DESC);
