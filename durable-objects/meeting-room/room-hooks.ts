import { CompletionHold } from "./completion-hold";
import type { RoomContext, RoomHooks } from "./context";
import { helpFields, helpTimerAfter } from "./help";
import { armScreenshotRetention } from "./screenshots";

/** The feature parts' share of every move, handed to the RoomContext so the hub imports none of them. */
export function roomHooks(room: RoomContext): RoomHooks {
	const completions = new CompletionHold(room);
	return {
		helpFields: (state, ask) => helpFields(room, state, ask),
		helpTimerAfter: (before, after, help) => helpTimerAfter(room, before, after, help),
		claimSummary: (row) => completions.claim(row),
		holdCompletion: (step, shown) => completions.entry(step, shown),
		armScreenshotRetention: (owner) => armScreenshotRetention(room, owner),
	};
}
