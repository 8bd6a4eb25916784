/**
 * The words of a bot's status and of a meeting's ending, declared once: the bot channel sends
 * them, the meeting's data keeps them, `/ws` and REST show them. Imports only zod.
 */
import { z } from "zod";

/** Statuses a bot may report; `requested` and `stopping` belong to the control plane. */
export const BotReportedStatus = z.enum(["joining", "awaiting_admission", "active", "needs_help", "completed", "failed"]);

/**
 * Why a meeting ended, as clients read it: only values of the reference's
 * `MeetingCompletionReason` (lifecycle.v1), so a client that parses that enum strictly reads every
 * ending. What the fleet knows beyond them goes in `FailureCause` (docs/status-machine.md#how-a-meeting-ends).
 */
export const CompletionReason = z.enum([
	"stopped",
	"left_alone",
	"startup_alone",
	"evicted",
	"awaiting_admission_timeout",
	"awaiting_admission_rejected",
	"join_failure",
	"max_bot_time_exceeded",
	"validation_error",
]);
export type CompletionReason = z.infer<typeof CompletionReason>;

/**
 * What took a bot away when the fleet, not the meeting, ended it (`data.failure_cause`): no
 * host claimed it, its host went away, its host was shut down, or it sat in `needs_help` past
 * the help timeout with nobody getting it past the screen it was stuck on. Such an ending is a teardown:
 * its `completion_reason` is the stage's (`join_failure`, `awaiting_admission_timeout`, or none
 * once admitted), as docs/status-machine.md#when-the-fleet-ends-a-meeting says.
 */
export const FailureCause = z.enum(["no_bot_capacity", "bot_host_lost", "host_drained", "help_timeout"]);
export type FailureCause = z.infer<typeof FailureCause>;

/**
 * What ended a completed meeting where its reason cannot say it (`data.completion_cause`): the
 * reference's reasons have no "meeting ended", so a meeting the host ended for everyone is
 * `left_alone` (everyone is gone, the bot last of all) with this cause beside it
 * (docs/status-machine.md#how-a-meeting-ends).
 */
export const CompletionCause = z.enum(["ended_by_host"]);
export type CompletionCause = z.infer<typeof CompletionCause>;

export const FailureStage = z.enum(["requested", "joining", "awaiting_admission", "active"]);

/**
 * A bot's way into a meeting, step by step and in order, finer than the stages: starting its
 * browser, opening the meeting link, the pre-join screen, asking to join (name typed, Join
 * clicked, waiting for the answer), the lobby, the call. A bot sends the step it is on with a
 * help request and with a failure, so a failed join says where it stopped (`data.join_step`,
 * docs/bot-fleet.md#join-health). Bots of earlier releases send none.
 */
export const JOIN_STEPS = ["start_browser", "open_page", "prejoin", "ask_to_join", "lobby", "in_call"] as const;
export const JoinStep = z.enum(JOIN_STEPS);
export type JoinStep = z.infer<typeof JoinStep>;
