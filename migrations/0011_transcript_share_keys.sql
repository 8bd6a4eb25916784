-- A public transcript share lives only as long as the key that made it: deleting the key
-- deletes its shares, and the public route also refuses a share whose key has expired.
-- Shares made before this column have no key; they last while their maker owns the meeting.
ALTER TABLE transcript_shares ADD COLUMN token_id INTEGER REFERENCES api_tokens(id) ON DELETE CASCADE;
CREATE INDEX transcript_shares_token ON transcript_shares(token_id);
