/**
 * A meeting's codes in people's words: its statuses, how it ended (completion reason, fleet cause,
 * stage, join step), why a bot asks for help, why it waits for a bot host, and its summary's and
 * recordings' states (docs/status-machine.md). Every table is typed by the code list it words, so a
 * new code does not compile until it has words here; words.test.ts walks the lists as well. Pure:
 * the codes stay in `data-*` attributes and the API, the page shows these.
 */

import type { MEETING_STATUSES } from "../../../src/meetings/statuses";
import type { PageState } from "../../../src/platforms/page-facts";
import type { CompletionCause, CompletionReason, FailureCause, JoinStep } from "../../../src/shapes/bot-status";
import type { HelpKind } from "../../../src/shapes/help";
import type { PlacementReason } from "../../../src/shapes/placement";
import type { RecordingStatus } from "../../../src/shapes/recording";
import type { SummaryStatus } from "../../../src/shapes/summary";

type MeetingStatus = (typeof MEETING_STATUSES)[number];
type FailureStage = "requested" | "joining" | "awaiting_admission" | "active";

/** A code no table knows yet (a newer server than this page): its words spelled out, never its underscores. */
export function spelledOut(code: string): string {
	return code.replace(/[_.]+/g, " ").trim();
}

const wordsOf = <K extends string>(table: Record<K, string>, code: string): string =>
	(table as Record<string, string | undefined>)[code] ?? spelledOut(code);

/** `deleted` is what a record says once its meeting is gone. */
export const STATUS_WORDS: Record<MeetingStatus | "deleted", string> = {
	idle: "idle",
	scheduled: "scheduled",
	requested: "requested",
	joining: "joining",
	awaiting_admission: "in the lobby",
	needs_help: "needs help",
	active: "active",
	stopping: "stopping",
	completed: "completed",
	failed: "failed",
	deleted: "deleted",
};

export const statusWords = (status: string): string => wordsOf(STATUS_WORDS, status);

export const REASON_WORDS: Record<CompletionReason, string> = {
	stopped: "you stopped the bot (or it left on request)",
	left_alone: "everyone else left",
	startup_alone: "nobody else joined",
	max_bot_time_exceeded: "the bot reached its time limit",
	evicted: "the host removed the bot",
	awaiting_admission_timeout: "nobody let the bot in in time",
	awaiting_admission_rejected: "the host turned the bot away",
	join_failure: "the bot could not join",
	validation_error: "the bot's request was unusable",
};

export const COMPLETION_CAUSE_WORDS: Record<CompletionCause, string> = {
	ended_by_host: "the host ended the meeting",
};

/**
 * `completion_reason` in words, or null without one; `data.completion_cause`, where the reason
 * cannot say it, is what happened (a meeting the host ended is `left_alone`, not "everyone else
 * left"). An unknown reason or cause is spelled out.
 */
export function reasonWords(reason: string | null | undefined, cause?: unknown): string | null {
	if (typeof cause === "string" && cause) return wordsOf(COMPLETION_CAUSE_WORDS, cause);
	return reason ? wordsOf(REASON_WORDS, reason) : null;
}

export const CAUSE_WORDS: Record<FailureCause, string> = {
	no_bot_capacity: "no bot host had room for it",
	bot_host_lost: "its bot host went away",
	host_drained: "its bot host was shut down",
	help_timeout: "it asked for help and nobody got it past the screen in time",
};

/** `data.failure_cause` (the fleet, not the meeting, ended it) in words, or null. */
export function causeWords(cause: unknown): string | null {
	return typeof cause === "string" && cause ? wordsOf(CAUSE_WORDS, cause) : null;
}

export const STAGE_WORDS: Record<FailureStage, string> = {
	requested: "before a bot host took it",
	joining: "while joining",
	awaiting_admission: "in the lobby",
	active: "in the call",
};

/** When a failed meeting stopped (`failure_stage`), as a phrase: "while joining". */
export const stageWords = (stage: string): string => wordsOf(STAGE_WORDS, stage);

export const STEP_WORDS: Record<JoinStep, string> = {
	start_browser: "starting its browser",
	open_page: "opening the meeting link",
	prejoin: "on the meeting page, before asking to join",
	ask_to_join: "asking to join",
	lobby: "waiting in the lobby",
	in_call: "in the call",
};

/** Where a join stopped (`data.join_step`); "not reported" without one. */
export function stepWords(step: string | null | undefined): string {
	return step ? wordsOf(STEP_WORDS, step) : "not reported";
}

export const HELP_WORDS: Record<HelpKind, string> = {
	unknown_screen: "a screen it does not recognise",
	layout_changed: "a page whose layout changed: its controls are not where the bot looks",
	captcha: "a captcha or bot check",
	sign_in_required: "a sign-in wall",
	captions_unreadable: "people talk but the bot can read no captions",
};

/** What a bot asking for help is stuck on (`data.help.kind`). */
export const helpKindWords = (kind: string): string => wordsOf(HELP_WORDS, kind);

export const PLACEMENT_WORDS: Record<PlacementReason, string> = {
	no_host_reported: "no bot host is reporting",
	all_hosts_busy: "every bot host is busy",
	not_yet_pulled: "a bot host has room and is about to take it",
};

/** Why a meeting still waits for a bot host (`data.placement.reason`). */
export const placementWords = (reason: string): string => wordsOf(PLACEMENT_WORDS, reason);

export const SUMMARY_WORDS: Record<SummaryStatus, string> = {
	pending: "being written",
	ready: "ready",
	failed: "could not be written",
	no_model: "no model to write it",
};

export const summaryStatusWords = (status: string): string => wordsOf(SUMMARY_WORDS, status);

export const RECORDING_WORDS: Record<RecordingStatus, string> = {
	in_progress: "recording",
	completed: "completed",
	failed: "failed: nothing of it could be played",
};

export const recordingStatusWords = (status: string): string => wordsOf(RECORDING_WORDS, status);

/** What a bot records (the record's `recording_plan`) as the page says it: "video 720p / audio", "audio", "audio, WAV". */
export function recordingPlanWords(plan: { video: boolean; height: number; audio_format: string }): string {
	const audio = plan.audio_format === "wav" ? "audio, WAV" : "audio";
	return plan.video ? `video ${plan.height}p / ${audio}` : audio;
}

export const PAGE_STATE_WORDS: Record<PageState, string> = {
	prejoin: "the join screen",
	lobby: "the lobby",
	waiting_for_host: "waiting for the host to start the meeting",
	in_call: "in the call",
	denied: "the host turned the bot away",
	unanswered: "nobody answered the request to join",
	removed: "removed from the meeting",
	ended: "the meeting had ended",
	not_found: "meeting not found",
	encryption_error: "an encryption error from the platform",
	sign_in_required: "a sign-in wall",
	bot_wall: "a captcha or bot check",
	left: "the bot had left",
	unknown: "a screen the bot does not recognise",
};

/** What the driver took a page for (`data.diagnostics.page_state`). */
export const pageStateWords = (state: string): string => wordsOf(PAGE_STATE_WORDS, state);

const STATUS_HINTS: Partial<Record<MeetingStatus, string>> = {
	requested: "The bot is starting.",
	joining: "The bot is opening the meeting and filling in the join form.",
	awaiting_admission: "The bot is in the lobby: admit it in the meeting.",
	needs_help: "The bot is stuck and a person has to act: open the meeting and check what it shows.",
	stopping: "The bot was asked to leave and is confirming.",
};

/** A bot that cannot read captions is not stuck: it is in the call, and what it asks of the user differs. */
const CAPTIONS_UNREADABLE_HINT =
	"The bot is in the call and still records, but it can read no captions while people talk: check that captions are on in the meeting.";

/** What a live status asks of the user, or null; a bot asking for help says what about (`data.help.kind`). */
export function statusHint(status: string, helpKind?: string): string | null {
	if (status === "needs_help" && helpKind === "captions_unreadable") return CAPTIONS_UNREADABLE_HINT;
	return (STATUS_HINTS as Record<string, string | undefined>)[status] ?? null;
}
