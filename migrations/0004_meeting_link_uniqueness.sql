-- The startup rule: at most one non-terminal meeting per user, platform and native id, enforced
-- by the database. Kept apart from 0003 (which creates the table) so that an install whose
-- meetings already break the rule stops here, with 0003 applied and nothing else changed.

-- Data that already breaks it cannot be migrated: fail loudly and name the duplicates (SQLite puts
-- the bad "path" text into its error, which is how the names reach the operator).
SELECT json_extract('{}', 'DUPLICATE non-terminal meetings (user/platform/native id), resolve before upgrading: ' || group_concat(user_id || '/' || platform || '/' || native_meeting_id, ', '))
FROM (
	SELECT user_id, platform, native_meeting_id FROM meetings
	WHERE status NOT IN ('completed', 'failed') AND native_meeting_id IS NOT NULL
	GROUP BY user_id, platform, native_meeting_id HAVING count(*) > 1
)
HAVING count(*) > 0;

CREATE UNIQUE INDEX IF NOT EXISTS meetings_one_open_per_link ON meetings(user_id, platform, native_meeting_id)
	WHERE status NOT IN ('completed', 'failed') AND native_meeting_id IS NOT NULL;
