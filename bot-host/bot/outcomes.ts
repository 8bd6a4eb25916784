/**
 * How the bot's time in a meeting ends, as reported on the bot channel. The status always comes
 * from the shared ending table (REASON_OUTCOME), so the bot reports what the room records, and
 * every ending carries a human-readable `reason` that is safe to show the user.
 */

import { TimeoutError } from "puppeteer-core";
import {
	type CompletionCause,
	type CompletionReason,
	type FailureCause,
	linksWithoutSecrets,
	REASON_OUTCOME,
	STATUS_REASON_MAX,
} from "../../src/bot-channel/protocol.ts";
import type { PageState } from "../drivers/types.ts";
import { errorText } from "../error-text.ts";

export type Stage = "joining" | "awaiting_admission" | "active";

export interface Ending {
	status: "completed" | "failed";
	completion_reason?: CompletionReason;
	/** What ended a completed meeting where its reason cannot say it: the host ended it (`left_alone`). */
	completion_cause?: CompletionCause;
	/** The fleet, not the meeting, ended it (the host shut down): the room picks the reason from the stage. */
	failure_cause?: FailureCause;
	/** What happened, in words a user can act on. */
	reason: string;
	/** Leave the meeting ourselves before reporting (we decided to go). */
	leave: boolean;
}

/** An ending with a reason: its status is the table's, never chosen here. */
export const endingFor = (completion_reason: CompletionReason, reason: string, leave = false): Ending => ({
	status: REASON_OUTCOME[completion_reason],
	completion_reason,
	reason,
	leave,
});

/** The bot decided to go (a stop, a limit reached): it leaves the call, then reports. */
export const leaving = (completion_reason: CompletionReason, reason: string): Ending => endingFor(completion_reason, reason, true);

/** A failure the table has no reason for (a person has to act, or the bot broke once in the call). */
export const failedWithout = (reason: string, leave = false): Ending => ({ status: "failed", reason, leave });

/**
 * The bot's host is shutting down under it: a teardown, not a meeting's outcome. The bot leaves
 * and names the cause; the room gives the stage's reason (`join_failure` before the lobby,
 * `awaiting_admission_timeout` in it, none once admitted) and keeps the cause in `data.failure_cause`.
 */
export const hostDrained = (reason: string): Ending => ({ status: "failed", failure_cause: "host_drained", reason, leave: true });

/**
 * Null while the screen does not end anything (pre-join, lobby, in call), and for the screens a
 * person can get the bot past (a sign-in wall, a bot wall, one it does not know): those are
 * help requests (help.ts), not endings.
 */
export function outcomeOf(state: PageState, stage: Stage): Ending | null {
	switch (state) {
		case "denied":
			return endingFor("awaiting_admission_rejected", "the host denied the request to join");
		case "unanswered":
			return endingFor("awaiting_admission_timeout", "nobody answered the request to join (the platform stopped waiting)");
		case "removed":
			// Zoom shows the same screen for a waiting-room denial and a removal.
			if (stage !== "active")
				return endingFor("awaiting_admission_rejected", "the host denied the request to join (removed from the waiting room)");
			return endingFor("evicted", "removed from the meeting");
		case "ended":
			// The reference's enum has no "meeting ended": everyone is gone, the bot last of all; the cause says who ended it.
			return { ...endingFor("left_alone", "the host ended the meeting"), completion_cause: "ended_by_host" };
		case "left":
			return endingFor("stopped", "the page shows the bot left the meeting");
		case "not_found":
			return endingFor("join_failure", "meeting not found (invalid link, code or passcode)");
		case "encryption_error":
			// Not the host ending it: the platform's end-to-end encryption failed the call.
			if (stage !== "active") return endingFor("join_failure", "the platform could not set up the call: an encryption error");
			return failedWithout("the call ended with an encryption error on the platform (not ended by the host)");
		default:
			return null;
	}
}

/**
 * The text as it may leave the bot host: links lose their query, fragment and credentials (a
 * meeting link may carry its passcode as `pwd=`), the given secrets are masked, and it fits
 * the channel's limit.
 */
export function reportable(reason: string, secrets: readonly (string | null | undefined)[]): string {
	let text = linksWithoutSecrets(reason);
	for (const secret of secrets) if (secret) text = text.split(secret).join("***");
	return text.slice(0, STATUS_REASON_MAX);
}

/** "300 s", "1.5 s": how long a limit was, for a reason. */
export const seconds = (ms: number): string => `${Number((ms / 1000).toFixed(1))} s`;

/** "10 min", "90 s": a wait in the unit a person would say it in. */
export const duration = (ms: number): string => (ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : seconds(ms));

/** A failed page load in words: the network error code, or the timeout. */
export function navigationFailure(err: unknown, timeoutMs: number): string {
	if (err instanceof TimeoutError) return `no answer within ${seconds(timeoutMs)}`;
	const message = errorText(err);
	// Puppeteer adds " at <url>"; the code alone says it, and the link may carry a passcode.
	return /^net::[A-Z_]+/.exec(message)?.[0] ?? message;
}
