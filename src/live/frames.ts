/**
 * The frames of `/ws` (docs/live-feed.md), declared once. The Worker's builders
 * (feed-messages.ts, the live feed object) are typed against these, so a frame that drifts
 * fails to compile; packages/client/src/live-frames.ts is generated from this file
 * (`node scripts/build-client-types.mjs`, checked by test/unit/client/live-frames-drift.test.ts),
 * and the dashboard reads them from the client. So this file imports nothing.
 */

/** A meeting as subscribe names it: its link. */
export interface LiveMeetingLink {
	platform: string;
	native_id: string;
}

/** A meeting as the server's messages name it. */
export interface LiveMeetingRef {
	id: number;
	platform: string;
	native_id: string | null;
}

export interface SubscribedFrame {
	type: "subscribed";
	/** Every link accepted, those in `waiting` included. */
	meetings: LiveMeetingLink[];
	/** Accepted links with no meeting of the user's yet: the first one made there is watched. */
	waiting?: LiveMeetingLink[];
	/** Links whose platform is not one of the service's. */
	denied?: LiveMeetingLink[];
}

export interface UnsubscribedFrame {
	type: "unsubscribed";
	meetings: LiveMeetingLink[];
	/** `access_revoked` when the server ended the subscription. */
	reason?: string;
}

export interface PongFrame {
	type: "pong";
}

export interface ErrorFrame {
	type: "error";
	error: string;
	status?: number;
	detail?: string;
	details?: unknown;
}

/** Why a meeting is where it is, when there is something to say. */
export interface MeetingStatusData {
	reason?: string | null;
	completion_reason?: string | null;
	failure_detail?: string;
	/** A failed meeting the bot fleet ended: `no_bot_capacity`, `bot_host_lost` or `host_drained`. */
	failure_cause?: string;
	auto_join_error?: string;
	/** While `needs_help`: what the bot is stuck on (docs/api.md#help-and-diagnostics). */
	help?: MeetingHelp;
	/** On a failed meeting: what its bot saw last. */
	diagnostics?: MeetingDiagnostics;
	/** While the meeting waits for a bot host (docs/api.md#waiting-for-a-bot-host): on the note that says what it waits on. */
	placement?: MeetingPlacement;
}

/** A screenshot the owner may open: a short-lived signed link of the gateway, or null when there is none. */
export interface ScreenshotLink {
	/** Which attempt's bot took it, and its name: what the meeting keeps. */
	screenshot: { attempt: number; name: string } | null;
	screenshot_url: string | null;
}

/** `data.help`. Its page text is the meeting page's: attacker-controlled, escape it where shown. */
export interface MeetingHelp extends ScreenshotLink {
	kind: "unknown_screen" | "layout_changed" | "captcha" | "sign_in_required" | "captions_unreadable";
	reason: string;
	since: string;
	page_text: string;
}

/** `data.diagnostics`: the driver's last steps, the page it was on, its text and a screenshot. */
export interface MeetingDiagnostics extends ScreenshotLink {
	steps: { at: string; step: string }[];
	page_state: string | null;
	page_text: string;
	at: string;
}

/** Why a meeting still has no bot: no host reports, every host refuses work, or a host has room but has not pulled the ticket. */
export type PlacementReason = "no_host_reported" | "all_hosts_busy" | "not_yet_pulled";

/**
 * `data.placement`: a meeting waiting for a bot host says since when, until when, and why. Its
 * user sees their own wait and a count, never a host's id, load or words (those are for operators).
 */
export interface MeetingPlacement {
	/** When the current attempt began waiting (POST /bots, auto-join, or a respawn). */
	since: string;
	/** When the meeting fails `no_bot_capacity` (or an auto-join goes back to its plan) unless a host claims it. */
	deadline: string;
	attempt: number;
	reason: PlacementReason;
	/** The reason in generic words, e.g. "all bot hosts are busy". */
	detail: string;
	/** How many hosts reported recently. */
	hosts_reporting: number;
}

export interface MeetingStatusFrame {
	type: "meeting.status";
	meeting: LiveMeetingRef;
	payload: { status: string; data: MeetingStatusData | null };
	user_id: number;
	ts: string;
}

/** A segment as the live feed carries it. */
export interface LiveSegment {
	segment_id: string;
	speaker: string;
	speaker_source: string;
	text: string;
	start: number;
	end: number;
	start_time: number;
	end_time: number;
	language: string | null;
	completed: boolean;
	confidence?: number;
	words?: unknown[];
	/** When the service first stored the segment: a draft's confirmation keeps the draft's time, as GET /transcripts does. */
	created_at: string;
	absolute_start_time?: string;
	absolute_end_time?: string;
}

export interface TranscriptFrame {
	type: "transcript";
	meeting: LiveMeetingRef;
	speaker: string;
	/** The segment just confirmed (empty for a draft). */
	confirmed: LiveSegment[];
	/** All of the speaker's open drafts: replaces the previous `pending` of this speaker. */
	pending: LiveSegment[];
	ts: string;
}

export interface ChatMessageFrame {
	type: "chat_message";
	meeting: LiveMeetingRef;
	sender: string;
	text: string;
	timestamp: number;
	is_from_bot: boolean;
}

export type InteractiveEventType =
	| "speak.started"
	| "speak.completed"
	| "speak.interrupted"
	| "chat.received"
	| "chat.sent"
	| "screen.sharing_started"
	| "screen.sharing_stopped"
	| "avatar.set"
	| "avatar.reset"
	| "participant.joined"
	| "participant.left";

/** What the bot said about an interactive event; these fields sit beside `type` and `meeting`. */
export interface InteractiveFields {
	text?: string;
	source?: string;
	sender?: string;
	timestamp?: number;
	content_type?: string;
	/** `screen.sharing_*`: whether the content went out as the platform's screen share or on the bot's camera. */
	presented_as?: "screen_share" | "camera";
	participant?: { id: string; name: string };
}

/** The bot's interactive events. */
export interface InteractiveFrame extends InteractiveFields {
	type: InteractiveEventType;
	meeting: LiveMeetingRef;
	ts: string;
}

/** Frames about a meeting. */
export type MeetingFrame = MeetingStatusFrame | TranscriptFrame | ChatMessageFrame | InteractiveFrame;
/** Every frame the server sends. */
export type LiveFrame = SubscribedFrame | UnsubscribedFrame | PongFrame | ErrorFrame | MeetingFrame;

/** What the client sends. */
export type LiveAction =
	| { action: "subscribe"; meetings: LiveMeetingLink[] }
	| { action: "unsubscribe"; meetings: LiveMeetingLink[] }
	| { action: "ping" };
