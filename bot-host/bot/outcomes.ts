/** How a screen that ends the bot's time in a meeting is reported on the bot channel. */
import type { CompletionReason } from "../../src/bot-channel/protocol.ts";
import type { MeetingState } from "../drivers/types.ts";

export type Stage = "joining" | "awaiting_admission" | "active";

export interface Ending {
	status: "completed" | "failed";
	completion_reason?: CompletionReason;
	reason?: string;
	/** Leave the meeting ourselves before reporting (we decided to go). */
	leave: boolean;
}

/** The bot decided to go (a stop, a limit reached): it leaves the call and reports `completed`. */
export const leaving = (completion_reason: CompletionReason, reason?: string): Ending => ({
	status: "completed",
	completion_reason,
	...(reason ? { reason } : {}),
	leave: true,
});

const failed = (completion_reason: CompletionReason | undefined, reason: string): Ending => ({
	status: "failed",
	...(completion_reason ? { completion_reason } : {}),
	reason,
	leave: false,
});

/** Null while the screen does not end anything (pre-join, lobby, in call). */
export function outcomeOf(state: MeetingState, stage: Stage): Ending | null {
	switch (state) {
		case "denied":
			return failed("awaiting_admission_rejected", "the host denied the request to join");
		case "removed":
			// Zoom shows the same screen for a waiting-room denial and a removal.
			if (stage !== "active") return failed("awaiting_admission_rejected", "removed from the waiting room");
			return { status: "completed", completion_reason: "evicted", reason: "removed from the meeting", leave: false };
		case "ended":
			return { status: "completed", completion_reason: "meeting_ended", leave: false };
		case "left":
			return { status: "completed", completion_reason: "stopped", reason: "the page shows the bot left", leave: false };
		case "not_found":
			return failed("join_failure", "meeting not found (invalid link, code or passcode)");
		// Named failures, not join_failure: a person has to act (sign in, change a setting).
		case "sign_in_required":
			return failed(undefined, "sign_in_required: the platform asks the bot to sign in");
		case "bot_wall":
			return failed(undefined, "bot_wall: the platform refused an automated guest (captcha or bot check)");
		default:
			return null;
	}
}
