import { linksWithoutSecrets } from "../bot-channel/protocol";
import type { CompletionReason, FailureCause } from "./status-machine";

/** Long enough for a sentence and a host's error text; short enough for every record and frame. */
export const FAILURE_DETAIL_MAX = 500;

/**
 * What a failure says when its source gave no words of its own; null for the reasons a meeting
 * completes with, which fall to the general words. Every reason has its row, so a new one does not
 * compile until it is given words or null.
 */
const BY_REASON: Record<CompletionReason, string | null> = {
	stopped: null,
	left_alone: null,
	startup_alone: null,
	max_bot_time_exceeded: null,
	evicted: "the bot was removed from the meeting",
	awaiting_admission_timeout: "nobody admitted the bot in time",
	awaiting_admission_rejected: "the host denied the bot entry",
	join_failure: "the bot could not join the meeting",
	validation_error: "the meeting details were not accepted",
};

/** What a fleet cause says when its source gave no words of its own. */
const BY_CAUSE: Record<FailureCause, string> = {
	no_bot_capacity: "no bot host took the meeting in time",
	bot_host_lost: "the bot's host went away",
	host_drained: "the bot's host was shut down before the meeting ended",
	help_timeout: "the bot asked for help and nobody got it past the screen it was stuck on in time",
};

/**
 * The human-readable cause a failed meeting carries (`data.failure_detail`), made safe once for
 * every place it is shown: URLs lose credentials, query and fragment; keys and bearer tokens are
 * redacted; control characters go; the text is bounded.
 */
export function failureDetail(text: string | null | undefined, reason: CompletionReason | null, cause?: FailureCause): string {
	const said = text?.trim() ? sanitize(text) : "";
	return said || (cause && BY_CAUSE[cause]) || (reason && BY_REASON[reason]) || "the bot could not continue";
}

export function sanitize(text: string): string {
	const cleaned = linksWithoutSecrets(text.replace(/\p{Cc}+/gu, " "))
		.replace(/\bBearer\s+[^\s"',;]+/gi, "Bearer [redacted]")
		.replace(/\bvxa_[A-Za-z0-9_-]+/g, "vxa_[redacted]")
		.replace(/\b(token|secret|password|api[_-]?key)(\s*[=:]\s*)[^\s"',;&]+/gi, "$1$2[redacted]")
		.replace(/\s+/g, " ")
		.trim();
	return cleaned.length > FAILURE_DETAIL_MAX ? `${cleaned.slice(0, FAILURE_DETAIL_MAX - 1)}…` : cleaned;
}
