-- Which key minted a key through POST /auth/keys (docs/api.md#your-own-api-keys): revoking a
-- key revokes every key it minted, and theirs in turn (the cascade follows the chain), so a
-- leaked key's offspring do not outlive it. NULL for keys the admin minted and for keys minted
-- before this column.
ALTER TABLE api_tokens ADD COLUMN minted_by INTEGER REFERENCES api_tokens(id) ON DELETE CASCADE;
CREATE INDEX api_tokens_minted_by ON api_tokens(minted_by);

-- Claims a bot host made since its last report (docs/bot-fleet.md#host-credentials): a host
-- claims at most the free slots it last reported, so one host cannot take every meeting the
-- fleet places. A report sets it back to 0.
ALTER TABLE bot_hosts ADD COLUMN claims_since_report INTEGER NOT NULL DEFAULT 0;
