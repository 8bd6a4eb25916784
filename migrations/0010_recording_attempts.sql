-- A bot uploads its recording once (PUT /internal/recordings/:id): the attempt whose channel
-- token made the upload is kept with it, and a second upload of that attempt is refused.
ALTER TABLE recordings ADD COLUMN bot_attempt INTEGER;
CREATE UNIQUE INDEX recordings_bot_attempt ON recordings(meeting_id, bot_attempt) WHERE bot_attempt IS NOT NULL;
