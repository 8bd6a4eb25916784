/**
 * Raw SQL store (a join of users, their settings and meetings with a window per row, and one D1
 * batch built from drizzle's statements): the retention sweep's reads and writes
 * (docs/retention.md). An account's window is its `retention_days`, else the deployment's
 * RETENTION_DAYS; 0 keeps everything.
 */
import { isNull } from "drizzle-orm";
import { meetings } from "../db/schema";
import type { Env } from "../env";
import { recordingRowDeletes } from "../recordings/recording-store";
import { meetingDataUpdate } from "./meeting-data";

/** An ended meeting whose media outlived its owner's window. */
export interface ExpiredMeeting {
	id: number;
	userId: number;
	workspaceId: string | null;
}

/**
 * Ended meetings not yet swept whose end is further back than their owner's window, at most `?3`
 * (`?1` now, `?2` the deployment's days). Driven by the accounts, one index range of
 * meetings_retention each (named, and joined after the accounts: without statistics SQLite would
 * rather read every ended meeting first), so meetings of an account that keeps everything are never read.
 */
export const EXPIRED_MEETINGS_SQL = `SELECT m.id AS id, m.user_id AS userId, m.workspace_id AS workspaceId
	FROM users u LEFT JOIN account_settings s ON s.user_id = u.id
	CROSS JOIN meetings m INDEXED BY meetings_retention
	WHERE coalesce(s.retention_days, ?2) > 0
		AND m.user_id = u.id AND m.media_expired_at IS NULL AND m.status IN ('completed', 'failed')
		AND m.end_time < strftime('%Y-%m-%dT%H:%M:%fZ', ?1, '-' || coalesce(s.retention_days, ?2) || ' days')
	LIMIT ?3`;

export async function expiredMeetings(env: Env, now: Date, deploymentDays: number, limit: number): Promise<ExpiredMeeting[]> {
	const { results } = await env.DB.prepare(EXPIRED_MEETINGS_SQL).bind(now.toISOString(), deploymentDays, limit).all<ExpiredMeeting>();
	return results;
}

/**
 * In one batch: the meeting's recordings' rows go (through their one place), its diagnostics
 * leave `data` (`diagnostics`, `help`, `help_history`: page text and screenshot references), and
 * it is marked swept, which takes it out of its search partition (migrations/0020_retention.sql).
 */
export async function markExpired(env: Env, meetingId: number, recordingIds: number[], at: string): Promise<void> {
	const statement = ({ sql, params }: { sql: string; params: unknown[] }) => env.DB.prepare(sql).bind(...params);
	const mark = meetingDataUpdate(
		env,
		meetingId,
		{ diagnostics: null, help: null, help_history: null },
		{ set: { mediaExpiredAt: at }, where: isNull(meetings.mediaExpiredAt), updatedAt: false },
	);
	await env.DB.batch([
		...(recordingIds.length > 0 ? recordingRowDeletes(env, recordingIds).map((q) => statement(q.toSQL())) : []),
		statement(mark),
	]);
}
