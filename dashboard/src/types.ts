/**
 * The API's wire shapes the dashboard reads (docs/api.md). Only the fields the pages use;
 * everything in them that a meeting produced (names, titles, text) is untrusted and is only
 * ever rendered as text.
 */

export type Platform = "google_meet" | "zoom" | "teams";

export interface CalendarSource {
	id: string;
	name: string;
	auto_join: boolean;
	bot_name: string;
}

export interface MeetingData {
	title?: string | null;
	notes?: string | null;
	scheduled_at?: string | null;
	calendar_sources?: CalendarSource[];
	auto_join_error?: string | null;
	completion_reason?: string | null;
	failure_stage?: string | null;
	failure_detail?: string | null;
	failure_cause?: string | null;
	[key: string]: unknown;
}

export interface Meeting {
	id: number;
	user_id: number;
	platform: Platform | "unknown";
	native_meeting_id: string | null;
	constructed_meeting_url: string | null;
	status: string;
	bot_container_id: string | null;
	start_time: string | null;
	end_time: string | null;
	completion_reason: string | null;
	failure_stage: string | null;
	workspace_id: string | number | null;
	auto_join: boolean;
	data: MeetingData | null;
	created_at: string;
	updated_at: string;
}

export interface Segment {
	segment_id: string;
	speaker: string | null;
	speaker_source?: string;
	text: string;
	start: number;
	end: number;
	language: string | null;
	completed: boolean;
	created_at?: string;
	absolute_start_time?: string | null;
	absolute_end_time?: string | null;
}

export interface Transcript {
	id: number;
	platform: string;
	native_meeting_id: string;
	constructed_meeting_url: string | null;
	status: string;
	start_time: string | null;
	end_time: string | null;
	segments: Segment[];
}

export interface Participant {
	participant_id: string;
	name: string;
	joined_at: string | null;
	left_at: string | null;
}

export interface ChatLine {
	sender: string;
	text: string;
	timestamp: string | number | null;
	is_from_bot: boolean;
}

export interface MediaFile {
	id: number;
	type: string;
	format: string;
	file_size_bytes: number | null;
	duration_seconds: number | null;
}

export interface Recording {
	id: number;
	meeting_id: number;
	status: string;
	created_at: string;
	media_files: MediaFile[];
}

export interface Calendar {
	id: string;
	name: string;
	ics_url_set: boolean;
	ics_url_masked: string | null;
	auto_join: boolean;
	bot_name: string;
	enabled: boolean;
}

export interface SyncStamp {
	calendar_id?: string;
	last_sync?: string | null;
	last_error?: string | null;
	counts?: { created: number; updated: number; cancelled: number };
}

export interface Me {
	user_id: number;
	email: string;
	scopes: string[];
	max_concurrent: number;
}

/** A meeting as `/ws` names it in every frame. */
export interface FeedMeetingRef {
	id: number;
	platform: string;
	native_id: string;
}
