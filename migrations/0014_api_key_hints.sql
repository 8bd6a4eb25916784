-- The last 4 characters of a key, kept at minting so a user can tell their keys apart in a
-- list (docs/api.md#your-own-api-keys). The key itself is still stored only as its SHA-256;
-- keys minted before this column show no hint (NULL).
ALTER TABLE api_tokens ADD COLUMN key_hint TEXT;
