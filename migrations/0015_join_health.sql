-- Join health (docs/bot-fleet.md#join-health): per platform, how bots' joins ended over the last
-- hour and day. `joining_at` is when the bot began its join (its first `joining`), the start of
-- its time to admission (to `start_time`); meetings older than this column have none and are
-- left out of that figure. The figures read a day of outcomes through one index on when each
-- join reached its outcome: admitted (`start_time`), or ended before that (`end_time`).
ALTER TABLE meetings ADD COLUMN joining_at TEXT;
CREATE INDEX meetings_join_outcome ON meetings(coalesce(start_time, end_time));
