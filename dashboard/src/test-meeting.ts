import type { Meeting } from "./types";

/** A meeting record as the API answers it, for the dashboard's unit tests: a live Meet bot, changed by `fields`. */
export function testMeeting(fields: Partial<Meeting> = {}): Meeting {
	return {
		id: 7,
		user_id: 1,
		platform: "google_meet",
		native_meeting_id: "abc-defg-hij",
		constructed_meeting_url: null,
		status: "requested",
		bot_container_id: null,
		start_time: null,
		end_time: null,
		completion_reason: null,
		failure_stage: null,
		session_uid: "abc-defg-hij",
		workspace_id: null,
		auto_join: false,
		notes: null,
		recording_plan: null,
		recordings: [],
		data: {},
		created_at: "2026-06-18T10:00:00.000Z",
		updated_at: "2026-06-18T10:00:00.000Z",
		...fields,
	};
}
