-- Each bot host's own credential (POST /admin/bot-hosts), stored only as its SHA-256 hash: a
-- claim or report is taken only from the host the credential was minted for, and deleting the
-- row revokes it at once (docs/bot-fleet.md#host-credentials).
CREATE TABLE bot_host_credentials (
	host_id TEXT PRIMARY KEY,
	credential_hash TEXT NOT NULL UNIQUE,
	created_at TEXT NOT NULL
);
