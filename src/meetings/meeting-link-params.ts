import { z } from "@hono/zod-openapi";
import { Platform } from "../bot-channel/protocol";
import { NATIVE_MEETING_ID_MAX_LENGTH, nativeMeetingIdProblem } from "./meeting-link";

/**
 * A native meeting id as clients send it, in a body or a path: bounded by length and
 * characters only (see nativeMeetingIdProblem), so every route judges an id the same way.
 */
export const NativeMeetingId = z
	.string()
	.trim()
	.superRefine((id, ctx) => {
		const problem = nativeMeetingIdProblem(id);
		if (problem) ctx.addIssue({ code: "custom", message: problem });
	})
	.openapi({
		maxLength: NATIVE_MEETING_ID_MAX_LENGTH,
		description:
			"The platform's bare meeting id (e.g. `abc-defg-hij`, `98765432101`, a Teams meeting number or thread id). " +
			"Any shape is accepted; URL characters (`? & = / #`), spaces and control characters are refused.",
		example: "abc-defg-hij",
	});

/** `{platform}/{native_meeting_id}`: how the bot, transcript and metadata routes name a meeting. */
export const MeetingLinkParams = z.object({ platform: Platform, native_meeting_id: NativeMeetingId });
