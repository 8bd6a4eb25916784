-- Transcription engines (docs/api.md#transcription-engines). Each segment says where its text came
-- from: `captions` or the engine's name; NULL for segments stored before this was kept.
ALTER TABLE transcript_segments ADD COLUMN source TEXT;

-- The account's engine (PUT /user/transcription `engine`); NULL follows the deployment's
-- (TRANSCRIPTION_ENGINE). `transcription_token_sealed` holds that engine's key.
ALTER TABLE account_settings ADD COLUMN transcription_engine TEXT;
