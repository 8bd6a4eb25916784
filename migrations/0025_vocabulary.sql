-- Custom vocabulary (docs/api.md#vocabulary): the account's words and names, a JSON array
-- of strings (PUT /user/transcription `vocabulary`), merged into every bot's spawn request with
-- the bot's own and its calendar event's. NULL: none.
ALTER TABLE account_settings ADD COLUMN transcription_vocabulary TEXT;
