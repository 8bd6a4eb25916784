/**
 * How the pages name a meeting and its end, in words (docs/status-machine.md#how-a-meeting-ends).
 * Pure; every value it returns is rendered as text.
 */
import type { CompletionReason, FailureCause } from "../../src/bot-channel/protocol";
import { type LabelledMeeting, meetingLabel, platformName } from "../../src/meetings/meeting-label";
import { LIVE_STATUSES } from "../../src/meetings/statuses";

/** The platform's product name; a plan's `unknown` platform is "no link". */
export function platformWords(platform: string): string {
	return platform === "unknown" ? "no link" : platformName(platform);
}

/**
 * What every page calls a meeting: its title, else its platform and code ("Google Meet
 * abc-defg-hij"), else "Meeting without a link" and its date; never its record id. The same rule
 * names the meeting in the plain-text transcript (src/meetings/meeting-label.ts).
 */
export function meetingTitle(meeting: LabelledMeeting): string {
	return meetingLabel(meeting);
}

/** Every completion reason in words: a new reason does not compile until it has its words here. */
const REASON_WORDS: Record<CompletionReason, string> = {
	stopped: "stopped by you (or the bot left on request)",
	left_alone: "everyone else left",
	startup_alone: "nobody else joined",
	max_bot_time_exceeded: "the bot reached its time limit",
	evicted: "the host removed the bot",
	awaiting_admission_timeout: "nobody admitted the bot in time",
	awaiting_admission_rejected: "the host denied the bot",
	join_failure: "the bot could not join",
	validation_error: "the bot's request was unusable",
};

/** `completion_reason` as words, keeping the code beside them (`join_failure: the bot could not join`). */
export function reasonWords(reason: string | null | undefined): string | null {
	if (!reason) return null;
	// Any string may arrive on the wire: an unknown reason is shown as its code.
	const words = (REASON_WORDS as Record<string, string | undefined>)[reason];
	return words ? `${reason}: ${words}` : reason;
}

/** Every fleet cause in words: a new cause does not compile until it has its words here. */
const CAUSE_WORDS: Record<FailureCause, string> = {
	no_bot_capacity: "no bot host had room for it",
	bot_host_lost: "its bot host went away",
	host_drained: "its bot host was shut down",
	help_timeout: "it asked for help and nobody got it past the screen in time",
};

/** `data.failure_cause` (the fleet, not the meeting, ended it) as words beside its code, or null. */
export function causeWords(cause: unknown): string | null {
	if (typeof cause !== "string" || !cause) return null;
	const words = (CAUSE_WORDS as Record<string, string | undefined>)[cause];
	return words ? `${cause}: ${words}` : cause;
}

/** Every status a meeting can be live in (the status machine's list): Stop and the interactive forms apply to these. */
export { LIVE_STATUSES };

export function isLive(status: string): boolean {
	return (LIVE_STATUSES as readonly string[]).includes(status);
}

/** `url` when it is an http(s) address, else null: a meeting's link is untrusted, so a `javascript:` one never becomes an href. */
export function httpUrl(url: string | null | undefined): string | null {
	if (!url) return null;
	try {
		const parsed = new URL(url);
		return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
	} catch {
		return null;
	}
}

const STATUS_HINTS: Record<string, string> = {
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
	return STATUS_HINTS[status] ?? null;
}
